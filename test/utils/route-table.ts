import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import {
  AUTHENTICATED,
  type AuthenticatedOptions,
} from '../../src/auth/decorators/authenticated.decorator.js';
import { IS_PUBLIC } from '../../src/auth/decorators/public.decorator.js';

export interface RouteEntry {
  method: string;
  path: string;
  public: boolean;
  scopes: string[];
  jwtOnly: boolean;
  /** Only operators pass (`@Authenticated({ operator: true })`). */
  operator: boolean;
}

function join(...parts: Array<string | undefined>): string {
  const path = parts
    .flatMap((part) => (part ?? '').split('/'))
    .filter((segment) => segment.length > 0)
    .join('/');
  return `/${path}`;
}

/** Every route the running app serves through Nest, with the permission metadata its guards enforce. */
export function routeTable(app: INestApplication): RouteEntry[] {
  const entries: RouteEntry[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new () => unknown) | null;
      if (!controller) continue;
      const base = Reflect.getMetadata(PATH_METADATA, controller) as string | undefined;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (path === undefined || method === undefined) continue;
        const auth = (Reflect.getMetadata(AUTHENTICATED, handler) ??
          Reflect.getMetadata(AUTHENTICATED, controller)) as AuthenticatedOptions | undefined;
        const isPublic = Boolean(
          Reflect.getMetadata(IS_PUBLIC, handler) ?? Reflect.getMetadata(IS_PUBLIC, controller),
        );
        entries.push({
          method: RequestMethod[method],
          path: join(base, path),
          public: isPublic,
          scopes: isPublic ? [] : [...(auth?.scopes ?? ['FULL'])],
          jwtOnly: Boolean(auth?.jwtOnly),
          operator: !isPublic && Boolean(auth?.operator),
        });
      }
    }
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}
