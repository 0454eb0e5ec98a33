import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { PAGED_LIST, type PagedList } from '../../src/common/pagination/cursor-page.js';

/** The paged routes the running app serves (path → the list its cursors name), from `ApiPagedResponse`. */
export function pagedRoutes(app: INestApplication): Record<string, PagedList> {
  const routes: Record<string, PagedList> = {};
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new () => unknown) | null;
      if (!controller) continue;
      const base = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined)
          continue;
        const list = Reflect.getMetadata(PAGED_LIST, handler) as PagedList | undefined;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string;
        if (list) routes[`/${[base, path].join('/').split('/').filter(Boolean).join('/')}`] = list;
      }
    }
  }
  return routes;
}
