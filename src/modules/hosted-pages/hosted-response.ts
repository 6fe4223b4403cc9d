/** A complete answer the scan host writes as is (status, headers including Content-Type and CSP, body). */
export interface HostedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** What a scan answer may read of a code (the scan host's cached copy has at least this). `T` is the shape its type
 * stores in `qr_codes.target` (a handler's page reads its own shape). */
export interface ScannedCode<T extends object = Record<string, unknown>> {
  id: string;
  shortCode: string;
  target: T;
}
