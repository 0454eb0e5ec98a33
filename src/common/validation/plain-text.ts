import { ValidateBy, type ValidationOptions } from 'class-validator';

/** C0 controls (NUL, tab, line breaks, escape…), DEL and C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;
/** A UTF-16 surrogate without its pair: not a character, and not encodable as UTF-8. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/**
 * Invisible characters that change how the text around them is shown: bidirectional marks, embeddings, overrides
 * and isolates (a U+202E turns the rest of a line around, in the owner's list and in an operator's summary), and
 * zero-width characters that make two labels look alike. U+200D (zero-width joiner) is allowed only inside an emoji
 * sequence (a family, a profession), where it is how the emoji is spelled.
 */
const INVISIBLE_FORMATTING =
  /[\u061c\u115f\u1160\u180e\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0]|(?<!\p{Extended_Pictographic}|\p{Emoji_Modifier}|\ufe0f)\u200d|\u200d(?!\p{Extended_Pictographic})/u;

/**
 * One line of human text (a label, a description): no control characters, which PostgreSQL refuses (NUL) or which
 * would garble logs and screens that show it; no unpaired surrogates, which would be stored as U+FFFD; and no
 * invisible formatting characters (bidirectional controls, zero-width characters), which would make what a screen
 * shows differ from what was stored.
 */
export function isPlainText(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    !CONTROL_CHARACTER.test(value) &&
    !UNPAIRED_SURROGATE.test(value) &&
    !INVISIBLE_FORMATTING.test(value)
  );
}

/** class-validator: the field is {@link isPlainText} (null and absent are left to `@IsOptional`). */
export function IsPlainText(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      validator: {
        validate: (value) => isPlainText(value),
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} must be plain text: no control characters, bidirectional or zero-width formatting characters, or unpaired surrogates`,
      },
    },
    validationOptions,
  );
}
