import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'tollgate:public';

/** Opts a route out of the global default-deny authentication guard. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
