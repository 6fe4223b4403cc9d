import dns2 from 'dns2';

const { Packet } = dns2;

/**
 * A real DNS server on loopback (UDP, a free port) for custom-domain verification tests, built on dns2.
 * Tests change its TXT records while the app runs; every other question gets NXDOMAIN. Answers carry TTL 0.
 */
export class TestDnsServer {
  private readonly txt = new Map<string, string[]>();
  /** Names answered with an error code (2 SERVFAIL, 5 REFUSED) or not answered at all ('drop': the lookup times out). */
  private readonly failing = new Map<string, number | 'drop'>();
  private server?: ReturnType<typeof dns2.createServer>;
  /** `127.0.0.1:<port>`, the DOMAIN_DNS_SERVERS value that points the app at this server. */
  address = '';
  /** Questions received, newest last (name and type), so tests can see that a lookup really happened. */
  readonly questions: Array<{ name: string; type: number }> = [];

  async start(): Promise<this> {
    this.server = dns2.createServer({
      udp: true,
      handle: (request, send) => {
        const response = Packet.createResponseFromRequest(request);
        const [question] = request.questions;
        const name = question.name.toLowerCase().replace(/\.$/, '');
        this.questions.push({ name, type: question.type });
        const failure = this.failing.get(name);
        if (failure === 'drop') return;
        const values = this.txt.get(name);
        if (failure !== undefined) {
          response.header.rcode = failure;
        } else if (!values) {
          response.header.rcode = 3; // NXDOMAIN
        } else if (question.type === Packet.TYPE.TXT) {
          for (const data of values) {
            // dns2 encodes plain records itself; its type wants a class instance (with toBuffer).
            const answer = { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data };
            response.answers.push(answer as unknown as (typeof response.answers)[number]);
          }
        }
        void send(response);
      },
    });
    // UDP only: the answers are small, so Node's resolver never needs to fall back to TCP.
    await this.server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    this.address = `127.0.0.1:${this.server.addresses().udp!.port}`;
    return this;
  }

  setTxt(name: string, ...values: string[]): void {
    this.txt.set(name.toLowerCase(), values);
  }

  remove(name: string): void {
    this.txt.delete(name.toLowerCase());
    this.failing.delete(name.toLowerCase());
  }

  /** Makes lookups of `name` fail: `servfail`, `refused`, or `timeout` (no answer at all). */
  fail(name: string, how: 'servfail' | 'refused' | 'timeout'): void {
    this.failing.set(name.toLowerCase(), how === 'timeout' ? 'drop' : how === 'servfail' ? 2 : 5);
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
