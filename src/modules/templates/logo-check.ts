/** Checks a design's logo as a code's creation does (fetched SSRF-safe or decoded from its `data:` URL, then checked
 * as an image), storing nothing: a 400 on `design.logo.url` otherwise. The check lives in a module above templates
 * (images), so templates defines the interface and src/app binds it (api.module.ts). */
export interface LogoCheck {
  loadLogo(url: string): Promise<unknown>;
}

export const LOGO_CHECK = Symbol('LOGO_CHECK');
