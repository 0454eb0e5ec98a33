import type { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
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

class Tag {
  @IsString()
  @MaxLength(3)
  name: string;
}

class CreateThing {
  @IsString()
  @MaxLength(5)
  label: string;

  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => Tag)
  tags: Tag[];

  @IsOptional()
  @IsString()
  note?: string;
}

/** `details.fields` of the pipe's refusal of `value` as a CreateThing body. */
async function refusal(value: object): Promise<unknown> {
  const error = await createValidationPipe()
    .transform(value, { type: 'body', metatype: CreateThing })
    .then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
  expect(error).toBeInstanceOf(ApiError);
  return (error as ApiError).details?.fields;
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

describe('createValidationPipe messages', () => {
  it('says a missing field is required, once, instead of a constraint about its value', async () => {
    expect(await refusal({})).toEqual([
      { field: 'label', message: 'label is required' },
      { field: 'tags', message: 'tags is required' },
    ]);
    expect(await refusal({ label: 'ok', tags: [{}] })).toEqual([
      { field: 'tags[0].name', message: 'tags[0].name is required' },
    ]);
  });

  it('keeps the constraint message for a value that is present but bad, null included', async () => {
    expect(await refusal({ label: 'too long', tags: [{ name: 'abcd' }] })).toEqual([
      { field: 'label', message: 'label must be shorter than or equal to 5 characters' },
      { field: 'tags[0].name', message: 'name must be shorter than or equal to 3 characters' },
    ]);
    expect(await refusal({ label: null, tags: [], note: 5, extra: 1 })).toEqual([
      { field: 'extra', message: 'property extra should not exist' },
      { field: 'label', message: 'label must be shorter than or equal to 5 characters' },
      { field: 'tags', message: 'tags should not be empty' },
      { field: 'note', message: 'note must be a string' },
    ]);
  });
});
