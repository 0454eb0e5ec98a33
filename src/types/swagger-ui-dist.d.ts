declare module 'swagger-ui-dist' {
  /** Directory holding Swagger UI's prebuilt assets. */
  export function getAbsoluteFSPath(): string;
  const swaggerUiDist: { getAbsoluteFSPath(): string };
  export default swaggerUiDist;
}
