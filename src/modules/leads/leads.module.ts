import { Module } from '@nestjs/common';

/** Lead-capture form posts on the scan host. */
@Module({})
export class LeadsModule {}
