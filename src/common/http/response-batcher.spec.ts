import { ResponseBatcher } from './response-batcher.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ResponseBatcher', () => {
  it('writes the responses of one turn together after it, in order, with their payloads unchanged', async () => {
    const batcher = new ResponseBatcher<string>(() => undefined);
    const written: string[] = [];
    const send = (_error: null, payload: string): void => void written.push(payload);

    batcher.defer(send, 'first');
    batcher.defer(send, 'second');
    await Promise.resolve();
    expect(written).toEqual([]);

    await nextTurn();
    expect(written).toEqual(['first', 'second']);
  });

  it('lets a response deferred while a batch is written go out with the next one', async () => {
    const batcher = new ResponseBatcher<string>(() => undefined);
    const written: string[] = [];
    const send = (_error: null, payload: string): void => void written.push(payload);

    batcher.defer((error, payload) => {
      send(error, payload);
      batcher.defer(send, 'later');
    }, 'now');
    await nextTurn();
    expect(written).toEqual(['now']);

    await nextTurn();
    expect(written).toEqual(['now', 'later']);
  });

  it('still writes the rest of a batch when one write throws, and reports the error', async () => {
    const errors: unknown[] = [];
    const batcher = new ResponseBatcher<string>((error) => errors.push(error));
    const written: string[] = [];
    const failure = new Error('socket gone');

    batcher.defer(() => {
      throw failure;
    }, 'lost');
    batcher.defer((_error, payload) => void written.push(payload), 'kept');
    await nextTurn();

    expect(written).toEqual(['kept']);
    expect(errors).toEqual([failure]);
  });
});
