import { DriverException, ServerException } from '@mikro-orm/core';
import { isDependencyDown } from './exception.filter';

const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('isDependencyDown', () => {
  it('knows PostgreSQL restarting, failing over or dropping the connection: a 503, not a 500', () => {
    for (const err of [
      new ServerException(pgError('select 1 - the database system is starting up', '57P03')),
      new DriverException(pgError('select 1 - terminating connection due to administrator command', '57P01')),
      new DriverException(pgError('select 1 - Connection terminated unexpectedly')),
      new DriverException(pgError('connection failure', '08006')),
      new DriverException(pgError('sorry, too many clients already', '53300')),
      Object.assign(new Error('wrapped'), { cause: pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED') }),
    ]) {
      expect([err.message, isDependencyDown(err)]).toEqual([err.message, true]);
    }
  });

  it('leaves other database errors alone', () => {
    for (const err of [new DriverException(pgError('duplicate key value', '23505')), new DriverException(pgError('syntax error', '42601')), new Error('boom')]) {
      expect([err.message, isDependencyDown(err)]).toEqual([err.message, false]);
    }
  });
});
