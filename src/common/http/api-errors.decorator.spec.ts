import { DECORATORS } from '@nestjs/swagger';
import { ApiErrors } from './api-errors.decorator.js';

class Handlers {
  @ApiErrors({ 400: ['validation_failed'], 403: ['address_forbidden'] })
  @ApiErrors({ 401: ['missing_credentials'], 403: ['insufficient_scope', 'address_forbidden'] })
  route(): void {}
}

type Response = { description: string; schema: { allOf: Array<Record<string, any>> } };

describe('ApiErrors', () => {
  const responses = Reflect.getMetadata(DECORATORS.API_RESPONSE, Handlers.prototype.route) as Record<
    string,
    Response
  >;
  const codes = (status: string) =>
    responses[status]!.schema.allOf[1]!.properties.details.properties.code.enum;

  it('merges the codes of every ApiErrors on a route into one response per status', () => {
    expect(Object.keys(responses).sort()).toEqual(['400', '401', '403']);
    expect(codes('403')).toEqual(['insufficient_scope', 'address_forbidden']);
    expect(responses['403']!.description).toBe(
      'Credential lacks the scope or the right on that address. `details.code`: `insufficient_scope`, `address_forbidden`.',
    );
  });

  it('narrows details.code of the error object to an enum of those codes', () => {
    expect(responses['400']!.schema.allOf[0]).toEqual({ $ref: '#/components/schemas/ErrorResponseDto' });
    expect(codes('400')).toEqual(['validation_failed']);
    expect(codes('401')).toEqual(['missing_credentials']);
  });
});
