import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A declared field that was not sent: an optional one is never validated when absent, so any failure of an absent
 * one means it is required. Its other constraints (length, format) speak of a value that is not there.
 */
function isMissing(error: ValidationError): boolean {
  return (
    error.value === undefined &&
    typeof error.property === 'string' &&
    error.constraints !== undefined &&
    !('whitelistValidation' in error.constraints)
  );
}

/**
 * Flattens class-validator's tree into `[{ field: 'scopes[1]', message }]` paths a client can act on; an absent
 * field is reported once, as `<field> is required`.
 */
export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    if (isMissing(error)) return [{ field, message: `${field} is required` }];
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...fieldProblems(error.children ?? [], field)];
  });
}

/** Global validation: unknown fields are errors, payloads become DTO instances, failures become 400s. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    forbidUnknownValues: true,
    // The value is kept only so that an absent field can be told apart (isMissing); it is never sent back.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => {
      const fields = fieldProblems(errors);
      const summary = fields.length > 0 ? fields.map((f) => f.message).join('; ') : 'Invalid request';
      return ApiError.badRequest('validation_failed', summary, { fields });
    },
  });
}
