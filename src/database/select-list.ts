import { getMetadataArgsStorage } from 'typeorm';

/**
 * The SQL select list of some of an entity's properties, each column under its property's name
 * (`owner_address AS "ownerAddress"`), taken from the entity's column decorators. Raw SQL then returns rows of type
 * `Pick<Entity, …>` without a second list of column names beside the entity. `alias` qualifies each column for a
 * join (`d.endpoint_id AS "endpointId"`). Built once, when a repository's module loads.
 */
export function selectList<E>(
  entity: abstract new () => E,
  properties: readonly (keyof E & string)[],
  alias?: string,
): string {
  const columns = getMetadataArgsStorage().filterColumns(entity);
  return properties
    .map((property) => {
      const column = columns.find((candidate) => candidate.propertyName === property);
      if (!column) throw new Error(`${entity.name}.${property} is not a column`);
      const name = column.options.name ?? property;
      const qualified = alias ? `${alias}.${name}` : name;
      return name === property ? qualified : `${qualified} AS "${property}"`;
    })
    .join(', ');
}
