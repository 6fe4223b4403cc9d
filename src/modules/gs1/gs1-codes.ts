/** The stored type name of GS1 codes (`qr_codes.type`); GS1 bodies say `type: "gs1"` at the top level. Kept apart from
 * gs1-kind.ts (which loads the validators and the resolver) for callers that only select GS1 codes in SQL, such as the
 * operator CLI's lifecycle commands. */
export const GS1_TYPE = 'gs1';

/** A SQL condition on `qr_codes` (unaliased columns) that holds for GS1 codes: gs1Kind.sqlCondition. */
export const GS1_CODES_SQL = `type = '${GS1_TYPE}'`;
