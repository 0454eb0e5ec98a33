import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
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

/** Distinct valid query strings remembered per query DTO class (a pure function of the string: no expiry). */
const QUERIES_KEPT = 10_000;

/**
 * class-validator's pipe with one shortcut. A query DTO is a pure function of its query string, and the hot reads
 * are polled with the same few (a status page asks about the same address again and again): the validated
 * instance is frozen and kept per DTO class and query, so a repeated query skips class-transformer and
 * class-validator. Bodies and path parameters are validated afresh every time; failures are never kept.
 */
export class TollgateValidationPipe extends ValidationPipe {
  private readonly validQueries = new WeakMap<object, LRUCache<string, object>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype } = metadata;
    if (
      metadata.type !== 'query' ||
      !metatype ||
      value === null ||
      typeof value !== 'object' ||
      !this.toValidate(metadata)
    ) {
      return super.transform(value, metadata);
    }
    let known = this.validQueries.get(metatype);
    if (known === undefined) {
      known = new LRUCache<string, object>({ max: QUERIES_KEPT });
      this.validQueries.set(metatype, known);
    }
    const key = JSON.stringify(value);
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const validated = Object.freeze((await super.transform(value, metadata)) as object);
    known.set(key, validated);
    return validated;
  }
}

/** Global validation: unknown fields are errors, payloads become DTO instances, failures become 400s. */
export function createValidationPipe(): ValidationPipe {
  return new TollgateValidationPipe({
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
