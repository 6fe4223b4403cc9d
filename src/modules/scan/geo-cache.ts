import { geolocate, loadGeoIp, placeOf, type Place } from './enrich';

const NOWHERE: Place = Object.freeze({ country: null, city: null, region: null });
/** Slots of the cache (a power of two): each remembers one GeoLite2 network and its place. */
const SLOT_BITS = 14;

/**
 * An IPv4 address in dotted-quad form (optionally IPv4-mapped IPv6, `::ffff:a.b.c.d`) as an unsigned 32-bit number;
 * -1 for anything else (IPv6, a malformed value, a part with a leading zero).
 */
export function ipv4Number(ip: string): number {
  const start = ip.startsWith('::ffff:') ? 7 : 0;
  let n = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (++digits > 3 || part > 255) return -1;
    } else if (c === 46 && digits > 0 && dots < 3) {
      n = n * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else {
      return -1;
    }
  }
  return dots === 3 && digits > 0 ? n * 256 + part : -1;
}

/** Whether an IPv4 address is loopback, private or link-local: never in GeoLite2, answered without a lookup (a
 * lookup that finds nothing costs a few µs, and a scan host behind a proxy it does not trust sees only these). */
export function isLocalIpv4(n: number): boolean {
  const a = n >>> 24;
  const b = (n >>> 16) & 0xff;
  return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/**
 * geolocate() for the scan hot path. geoip-lite finds an address's GeoLite2 network by binary search (cheap) and
 * then decodes the network's location strings on every lookup (about 3.5 µs per public address). This remembers,
 * for IPv4, the networks recently answered with their decoded place, in a fixed table (16,384 slots) whose slot is
 * picked by the address's /24: an address inside the remembered network of its slot gets that place without a lookup.
 * The answer is always what geoip-lite gives for the address itself (the network's bounds are checked, so a /24 split
 * between networks is answered per network). What is kept is GeoLite2's network bounds and place, never the address;
 * IPv6 addresses are looked up every time.
 */
export class GeoCache {
  private readonly floors = new Uint32Array(1 << SLOT_BITS).fill(1);
  /** Below its floor while a slot is empty, so that nothing falls inside. */
  private readonly ceils = new Uint32Array(1 << SLOT_BITS);
  private readonly places = new Array<Place>(1 << SLOT_BITS).fill(NOWHERE);

  constructor() {
    loadGeoIp(); // at start-up, not on the first scan
  }

  /** The place of an address (see the class comment). */
  locate(ip: string | undefined): Place {
    if (!ip) return NOWHERE;
    const n = ipv4Number(ip);
    if (n < 0) return geolocate(ip);
    if (isLocalIpv4(n)) return NOWHERE;
    const slot = Math.imul(n >>> 8, 0x9e3779b1) >>> (32 - SLOT_BITS);
    if (this.floors[slot] <= n && n <= this.ceils[slot]) return this.places[slot];
    const hit = loadGeoIp().lookup(n);
    // No network (private and reserved ranges, gaps in the data): nothing to remember, and no strings to decode.
    if (!hit) return NOWHERE;
    const place = placeOf(hit);
    this.floors[slot] = hit.range[0];
    this.ceils[slot] = hit.range[1];
    this.places[slot] = place;
    return place;
  }
}
