import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { geoPayload } from './encoders';
import { FieldReader, headerSafeUrl, Input } from './fields';
import { badDestination } from './structured';
import type { StoredTarget, TargetHandler } from './target-handler';

export class LocationTarget {
  @ApiProperty({ enum: ['location'] }) type!: string;
  @ApiPropertyOptional({ example: 48.8584, minimum: -90, maximum: 90, description: 'Required unless `destination` is given' }) lat?: number;
  @ApiPropertyOptional({ example: 2.2945, minimum: -180, maximum: 180, description: 'Required unless `destination` is given' }) lng?: number;
  @ApiPropertyOptional({ example: 'Eiffel Tower' }) label?: string;
  @ApiPropertyOptional() address?: string;
  @ApiPropertyOptional({ enum: ['google', 'apple', 'waze'], default: 'google' }) map_app?: string;
  @ApiPropertyOptional({ example: 'geo:48.8584,2.2945', maxLength: 4000, description: 'Instead of the fields above: the pre-encoded payload (a geo: URI); a static code encodes it as given' }) destination?: string;
}

const MAP_APPS = ['google', 'apple', 'waze'] as const;

function readLocation(r: FieldReader): StoredTarget {
  const lat = r.number('lat', { required: true, min: -90, max: 90 });
  const lng = r.number('lng', { required: true, min: -180, max: 180 });
  return {
    lat,
    lng,
    label: r.string('label', { max: 255 }) ?? null,
    address: r.string('address', { max: 500 }) ?? null,
    map_app: r.oneOf('map_app', MAP_APPS) ?? 'google',
  };
}

function parseGeo(raw: string, r: FieldReader): Input {
  const m = /^geo:(-?\d+(\.\d+)?),(-?\d+(\.\d+)?)/i.exec(raw.trim());
  if (!m) return badDestination(r, 'a geo: URI such as geo:48.8584,2.2945');
  return { lat: Number(m[1]), lng: Number(m[3]) };
}

export function mapUrl(t: StoredTarget): string {
  const { lat, lng, label } = t as { lat: number; lng: number; label: string | null };
  switch (t.map_app) {
    case 'apple':
      return `https://maps.apple.com/?ll=${lat},${lng}${label ? `&q=${encodeURIComponent(label)}` : ''}`;
    case 'waze':
      return `https://waze.com/ul?ll=${lat},${lng}&navigate=yes`;
    default:
      return `https://www.google.com/maps/search/?api=1&query=${lat},${lng}`;
  }
}

export const locationHandler: TargetHandler = {
  type: 'location',
  schema: LocationTarget,
  staticCapable: true,
  pageHolding: false,
  parse(r) {
    r.only(['lat', 'lng', 'label', 'address', 'map_app', 'destination']);
    if (r.has('destination')) {
      if (r.has('lat') || r.has('lng')) r.fail('destination', 'cannot be combined with target.lat/target.lng');
      const raw = r.string('destination', { required: true, max: 2048 })!;
      return readLocation(new FieldReader({ ...r.input, ...parseGeo(raw, r), destination: undefined }, r.path));
    }
    return readLocation(r);
  },
  patch(current, r) {
    r.only(['lat', 'lng', 'label', 'address', 'map_app', 'destination']);
    if (r.has('destination')) {
      const raw = r.string('destination', { required: true, max: 2048 })!;
      if (/^https?:\/\//i.test(raw)) {
        // A plain destination turns the code into an ordinary redirect (docs/targets.md).
        if (['lat', 'lng', 'label', 'address', 'map_app'].some((f) => r.has(f))) {
          r.fail('destination', 'cannot be combined with location fields');
        }
        return { type: 'url', target: { destination: r.url('destination', { required: true }), utm: null } };
      }
      return { type: 'location', target: readLocation(new FieldReader({ ...current, ...parseGeo(raw, r) }, r.path)) };
    }
    if (r.has('lat') !== r.has('lng')) r.fail(r.has('lat') ? 'lng' : 'lat', 'must be sent together with the other coordinate');
    const merged: Input = { ...current };
    for (const f of ['lat', 'lng', 'label', 'address', 'map_app']) if (f in r.input) merged[f] = r.input[f];
    return { type: 'location', target: readLocation(new FieldReader(merged, r.path)) };
  },
  payload: (t) => geoPayload(t as { lat: number; lng: number }),
  // A dynamic location code redirects to the map app's link.
  scan: { fixedLocation: (t) => (typeof t.lat === 'number' && typeof t.lng === 'number' ? headerSafeUrl(mapUrl(t)) : null) },
};
