import { ApiError } from '../../common/errors/api-error.js';
import type { AuthenticatedOptions } from '../decorators/authenticated.decorator.js';
import type { Principal } from '../principal.js';
import { ROUTE_SCOPES } from '../scopes.js';
import { checkAccess } from './route-access.js';

const wallet: Principal = {
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
  scopes: ['FULL'],
  via: 'jwt',
  operator: false,
};
const operator: Principal = { ...wallet, operator: true };

/** The code checkAccess refuses with, or 'passed'. */
function outcome(options: AuthenticatedOptions, principal: Principal): string {
  try {
    checkAccess(options, principal);
    return 'passed';
  } catch (error) {
    if (error instanceof ApiError) return `${error.getStatus()} ${error.code}`;
    throw error;
  }
}

describe('checkAccess', () => {
  const operatorOnly: AuthenticatedOptions = { scopes: ROUTE_SCOPES.full, operator: true };

  it('admits an operator, session or API key, to an operator-only route', () => {
    expect(outcome(operatorOnly, operator)).toBe('passed');
    expect(outcome(operatorOnly, { ...operator, via: 'api_key', keyId: 'k' })).toBe('passed');
  });

  it('refuses anyone else with 403 operator_required, after the scopes', () => {
    expect(outcome(operatorOnly, wallet)).toBe('403 operator_required');
    expect(outcome(operatorOnly, { ...wallet, via: 'api_key', keyId: 'k' })).toBe('403 operator_required');
    expect(outcome(operatorOnly, { ...operator, scopes: ['READ_ONLY'] })).toBe('403 insufficient_scope');
  });

  it('leaves a route without the option to every principal its scopes admit', () => {
    expect(outcome({ scopes: ROUTE_SCOPES.full }, wallet)).toBe('passed');
    expect(outcome({ scopes: ROUTE_SCOPES.full, jwtOnly: true }, { ...wallet, via: 'api_key' })).toBe(
      '403 jwt_required',
    );
  });
});
