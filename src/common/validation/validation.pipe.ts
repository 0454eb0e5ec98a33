import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError } from '../errors/api-error.js';

export interface FieldProblem {
  field: string;
  message: string;
}

/** Flattens class-validator's tree into `[{ field: 'scopes[1]', message }]` paths a client can act on. */
export function fieldProblems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
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
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = fieldProblems(errors);
      const summary = fields.length > 0 ? fields.map((f) => f.message).join('; ') : 'Invalid request';
      return ApiError.badRequest('validation_failed', summary, { fields });
    },
  });
}
