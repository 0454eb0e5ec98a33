// `npm run openapi:breaking`: the OpenAPI document against the last released one (docs/openapi.released.yaml),
// with openapi-diff (offline: both are local files). Fails on a breaking change unless `info.version` took a new
// major, on any other change the diff sees unless `info.version` went up, and when the client's CHANGELOG does not
// name the document's version in its latest entry. Arguments: [released] [current] [changelog] (tests).
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import openApiDiff from 'openapi-diff';

const [
  released = 'docs/openapi.released.yaml',
  current = 'docs/openapi.yaml',
  changelog = 'sdk/CHANGELOG.md',
] = process.argv.slice(2);

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** `[major, minor, patch]` of a semantic version, or a failure naming the file. */
function semver(version, file) {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(String(version));
  if (match === null)
    fail(`${file}: info.version ${JSON.stringify(version)} is not a semantic version (x.y.z)`);
  return match.slice(1).map(Number);
}

function compare(a, b) {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One line per difference: what changed, where. */
function describe(difference) {
  const where = [...difference.sourceSpecEntityDetails, ...difference.destinationSpecEntityDetails]
    .map((detail) => detail.location)
    .filter((location, index, all) => all.indexOf(location) === index)
    .join(', ');
  return `  ${difference.code}  ${where}`;
}

const sourceText = readFileSync(released, 'utf8');
const destinationText = readFileSync(current, 'utf8');
const releasedVersion = semver(load(sourceText).info?.version, released);
const currentVersion = semver(load(destinationText).info?.version, current);
const version = currentVersion.join('.');

// The client is generated from the document: its latest release names the document's version it was made from.
const latest = /^## (.+)$/m.exec(readFileSync(changelog, 'utf8'))?.[1] ?? '';
if (!latest.includes(`API ${version}`)) {
  fail(
    `${changelog}: the latest entry (${JSON.stringify(latest)}) must name the document's version: "API ${version}"`,
  );
}

const outcome = await openApiDiff.diffSpecs({
  sourceSpec: { content: sourceText, location: released, format: 'openapi3' },
  destinationSpec: { content: destinationText, location: current, format: 'openapi3' },
});
const sourceDocument = load(sourceText);
const destinationDocument = load(destinationText);

/** The schema a `$ref` names in `document`, or the schema itself. */
function resolve(document, schema) {
  const ref = schema?.$ref;
  if (typeof ref !== 'string') return schema;
  return ref
    .slice(2)
    .split('/')
    .reduce((node, key) => node?.[key], document);
}

/**
 * openapi-diff counts a property added to a request body as narrowing it (an open object accepted it with any value
 * before). The service has always refused unknown properties (400 `validation_failed`), so an added optional property
 * narrows nothing a client could send: such a difference is an addition when every former property is unchanged and
 * no property became required.
 */
function addsOptionalProperties(difference) {
  if (difference.code !== 'request.body.scope.remove') return false;
  const location = difference.sourceSpecEntityDetails[0]?.location ?? '';
  const match = /^paths\.(.+)\.(get|put|post|patch|delete)\.requestBody\.content\.(.+)\.schema$/.exec(
    location,
  );
  if (match === null) return false;
  const [, path, method, mediaType] = match;
  const schemaOf = (document) =>
    resolve(document, document.paths?.[path]?.[method]?.requestBody?.content?.[mediaType]?.schema);
  const before = schemaOf(sourceDocument);
  const after = schemaOf(destinationDocument);
  if (before?.type !== 'object' || after?.type !== 'object') return false;
  const required = (schema) => JSON.stringify([...(schema.required ?? [])].sort());
  if (required(before) !== required(after)) return false;
  return Object.entries(before.properties ?? {}).every(
    ([name, property]) => JSON.stringify(property) === JSON.stringify(after.properties?.[name]),
  );
}

const flagged = outcome.breakingDifferencesFound ? outcome.breakingDifferences : [];
const breaking = flagged.filter((difference) => !addsOptionalProperties(difference));
const others = [
  ...flagged.filter(addsOptionalProperties).map((difference) => ({ ...difference, type: 'non-breaking' })),
  ...outcome.nonBreakingDifferences,
  ...outcome.unclassifiedDifferences,
];

if (compare(currentVersion, releasedVersion) < 0) {
  fail(`${current}: info.version ${version} is below the released ${releasedVersion.join('.')}`);
}
if (breaking.length > 0 && currentVersion[0] <= releasedVersion[0]) {
  fail(
    `${current} breaks what ${released} (${releasedVersion.join('.')}) promised:\n` +
      `${breaking.map(describe).join('\n')}\n` +
      'Keep the old shape beside the new one, or, if the break is deliberate, take a new major info.version ' +
      '(src/openapi/openapi.ts) and say so in sdk/CHANGELOG.md.',
  );
}
if (breaking.length + others.length > 0 && compare(currentVersion, releasedVersion) === 0) {
  fail(
    `${current} changed since its release ${version} but kept its info.version:\n` +
      `${[...breaking, ...others].map(describe).join('\n')}\n` +
      'Raise info.version (src/openapi/openapi.ts): the minor for additions, and add an entry to sdk/CHANGELOG.md.',
  );
}

for (const difference of breaking)
  process.stdout.write(`breaking, in the new major ${version}:${describe(difference)}\n`);
for (const difference of others) process.stdout.write(`${difference.type}:${describe(difference)}\n`);
process.stdout.write(
  `${current} (${version}) has no breaking change against ${released} (${releasedVersion.join('.')})` +
    `${breaking.length > 0 ? ' outside its new major' : ''}\n`,
);
