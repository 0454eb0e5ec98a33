import { isConnectionFailure } from './connection-failure.js';

const withCode = (code: string, message = 'failed'): Error => Object.assign(new Error(message), { code });

describe('isConnectionFailure', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a fast stop (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a crash stop (57P02)', withCode('57P02')],
    ['a server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['a connection exception (class 08)', withCode('08006')],
    ['a broken connection', new Error('Connection terminated unexpectedly')],
    ['the pool waiting too long', new Error('timeout exceeded when trying to connect')],
    ['a connect timeout', new Error('Connection terminated due to connection timeout')],
    ['a refusal on every address', new AggregateError([withCode('ECONNREFUSED')], 'connect failed')],
    ['a wrapped refusal', new Error('outer', { cause: withCode('ECONNREFUSED') })],
  ])('recognises %s', (_name, error) => {
    expect(isConnectionFailure(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value')],
    ['a statement timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['a syntax error', withCode('42601')],
    ['a plain error', new Error('boom')],
    ['not an error', 'ECONNREFUSED'],
  ])('leaves %s alone', (_name, error) => {
    expect(isConnectionFailure(error)).toBe(false);
  });
});
