import { ValidateBy, type ValidationOptions } from 'class-validator';

/** RFC 3339: a date and a time with its offset, so that no instance's time zone decides what it means. */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i;

/**
 * Whether `value` is such a timestamp of a day that exists (JavaScript's parser takes 30 February as 2 March). A
 * time without an offset is refused: JavaScript would read it in the server's own time zone.
 */
export function isTimestamp(value: unknown): value is string {
  const match = typeof value === 'string' ? TIMESTAMP.exec(value) : null;
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** class-validator: the field is {@link isTimestamp} (null and absent are left to `@IsOptional`). */
export function IsTimestamp(validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTimestamp',
      validator: {
        validate: isTimestamp,
        defaultMessage: (args) =>
          `${args?.property ?? 'value'} must be an ISO 8601 date-time with a time zone offset or Z, such as 2026-11-25T08:00:00Z`,
      },
    },
    validationOptions,
  );
}
