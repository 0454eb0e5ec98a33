import { ValidateBy, type ValidationOptions } from 'class-validator';

/** C0 controls (NUL, tab, line breaks, escape…), DEL and C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/u;
/** A UTF-16 surrogate without its pair: not a character, and not encodable as UTF-8. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * One line of human text (a label, a description): no control characters, which PostgreSQL refuses (NUL) or which
 * would garble logs and screens that show it, and no unpaired surrogates, which would be stored as U+FFFD.
 */
export function isPlainText(value: unknown): value is string {
  return typeof value === 'string' && !CONTROL_CHARACTER.test(value) && !UNPAIRED_SURROGATE.test(value);
}

/** class-validator: the field is {@link isPlainText} (null and absent are left to `@IsOptional`). */
export function IsPlainText(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      validator: {
        validate: (value) => isPlainText(value),
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} must be plain text: no control characters or unpaired surrogates`,
      },
    },
    validationOptions,
  );
}
