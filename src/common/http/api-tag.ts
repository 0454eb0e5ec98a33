import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ApiTags } from '@nestjs/swagger';

export interface ApiTagOptions {
  /** What the tag's operations do, as the document's tag list describes it. */
  description: string;
  /** Sign-in reads first and operations last; every other tag follows in alphabetical order. */
  place?: 'first' | 'last';
}

export interface DeclaredTag extends ApiTagOptions {
  name: string;
}

const API_TAG = 'tollgate:api-tag';

/**
 * A controller's OpenAPI tag with its description: the document's tag list is built from these (swagger's
 * `@ApiTags` alone names a tag without describing it, and the document refuses it).
 */
export function ApiTag(name: string, options: ApiTagOptions): ClassDecorator {
  return applyDecorators(ApiTags(name), SetMetadata(API_TAG, { name, ...options } satisfies DeclaredTag));
}

const RANK = { first: 0, undefined: 1, last: 2 } as const;

/** The tags the app's controllers declare, in reading order (see {@link ApiTagOptions.place}). */
export function declaredTags(modules: ModulesContainer): DeclaredTag[] {
  const tags = new Map<string, DeclaredTag>();
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const tag =
        wrapper.metatype && (Reflect.getMetadata(API_TAG, wrapper.metatype) as DeclaredTag | undefined);
      if (tag) tags.set(tag.name, tag);
    }
  }
  return [...tags.values()].sort(
    (a, b) => RANK[`${a.place}`] - RANK[`${b.place}`] || a.name.localeCompare(b.name),
  );
}
