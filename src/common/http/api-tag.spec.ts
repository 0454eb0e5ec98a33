import type { ModulesContainer } from '@nestjs/core';
import { ApiTags } from '@nestjs/swagger';
import { ApiTag, declaredTags } from './api-tag.js';

@ApiTag('zeta', { description: 'Z.' })
class ZetaController {}
@ApiTag('health', { description: 'H.', place: 'last' })
class HealthController {}
@ApiTag('alpha', { description: 'A.' })
class AlphaController {}
@ApiTag('auth', { description: 'Sign-in.', place: 'first' })
class AuthController {}
@ApiTags('bare')
class BareController {}

/** A container holding the controllers, one module each, in the given order. */
const container = (...controllers: Array<new () => unknown>): ModulesContainer =>
  new Map(
    controllers.map((metatype, index) => [
      `m${index}`,
      { controllers: new Map([[metatype.name, { metatype }]]) },
    ]),
  ) as unknown as ModulesContainer;

describe('declaredTags', () => {
  it("lists the controllers' tags: sign-in first, operations last, the rest alphabetical", () => {
    const tags = declaredTags(
      container(ZetaController, HealthController, AlphaController, AuthController, BareController),
    );
    expect(tags.map(({ name, description }) => `${name}: ${description}`)).toEqual([
      'auth: Sign-in.',
      'alpha: A.',
      'zeta: Z.',
      'health: H.',
    ]);
  });
});
