import { connectionFailureReason, isConnectionFailure } from './connection-failure.js';

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

describe('connectionFailureReason', () => {
  it.each([
    ['PostgreSQL out of slots (53300)', withCode('53300', 'sorry, too many clients already')],
    [
      'the slots left to superusers (53300)',
      withCode('53300', 'remaining connection slots are reserved for non-replication superuser connections'),
    ],
    [
      'the same words without a code',
      new Error('remaining connection slots are reserved for roles with the SUPERUSER attribute'),
    ],
    ["PgBouncer's client limit", withCode('08P01', 'no more connections allowed (max_client_conn)')],
    ["PgBouncer's pool wait", withCode('08P01', 'query_wait_timeout')],
    ['a wrapped refusal', new Error('outer', { cause: withCode('53300') })],
  ])('tells %s as too_many_connections, still a connection failure', (_name, error) => {
    expect(connectionFailureReason(error)).toBe('too_many_connections');
    expect(isConnectionFailure(error)).toBe(true);
  });

  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a fast stop', withCode('57P01')],
    ['a broken connection', new Error('Connection terminated unexpectedly')],
  ])('tells %s as unreachable', (_name, error) => {
    expect(connectionFailureReason(error)).toBe('unreachable');
  });

  it('leaves a statement error alone', () => {
    expect(connectionFailureReason(withCode('23505'))).toBeUndefined();
  });
});
