import type { ArgumentMetadata } from '@nestjs/common';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ApiError } from '../errors/api-error.js';
import { createValidationPipe } from './validation.pipe.js';

class SearchQuery {
  @IsString()
  @MaxLength(5)
  term: string;

  @IsOptional()
  @IsString()
  page?: string;
}

const query: ArgumentMetadata = { type: 'query', metatype: SearchQuery };
const body: ArgumentMetadata = { type: 'body', metatype: SearchQuery };

describe('TollgateValidationPipe', () => {
  it('validates a query once and answers the same query with the same frozen instance', async () => {
    const pipe = createValidationPipe();
    const first = (await pipe.transform({ term: 'abc' }, query)) as SearchQuery;
    expect(first).toBeInstanceOf(SearchQuery);
    expect(first.term).toBe('abc');
    expect(Object.isFrozen(first)).toBe(true);
    expect(await pipe.transform({ term: 'abc' }, query)).toBe(first);
    expect(await pipe.transform({ term: 'abd' }, query)).not.toBe(first);
  });

  it('refuses an invalid query every time (failures are never kept)', async () => {
    const pipe = createValidationPipe();
    for (const value of [{ term: 'too long' }, { term: 'too long' }, { term: 'abc', extra: '1' }]) {
      await expect(pipe.transform(value, query)).rejects.toBeInstanceOf(ApiError);
    }
  });

  it('validates bodies afresh each time', async () => {
    const pipe = createValidationPipe();
    const first = await pipe.transform({ term: 'abc' }, body);
    const second = await pipe.transform({ term: 'abc' }, body);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(Object.isFrozen(second)).toBe(false);
  });
});
