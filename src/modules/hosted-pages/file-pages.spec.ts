import { filePage, humanSize } from './file-pages';

const code = (contentType: string, extra: Record<string, unknown> = {}) => ({
  id: 'qr_1',
  shortCode: 'AbC1234',
  target: {
    file_id: 'file_x',
    title: null,
    description: null,
    file: { name: 'a"<b>.bin', content_type: contentType, size: 2048, sha256: 'f'.repeat(64) },
    ...extra,
  },
});

describe('file pages', () => {
  it('shows each kind with the browser\'s own means, escaped, with a download button', () => {
    const pdf = String(filePage(code('application/pdf', { title: '<script>x</script>', description: 'Line 1\n<i>2</i>' }))!.body);
    expect(pdf).toContain('<object class="pdf" data="/AbC1234/file" type="application/pdf"');
    expect(pdf).toContain('<h1>&lt;script&gt;x&lt;/script&gt;</h1>');
    expect(pdf).toContain('<p class="text">Line 1\n&lt;i&gt;2&lt;/i&gt;</p>');
    // The offered name always carries the sniffed type's extension (a PDF named .bin downloads as .bin.pdf).
    expect(pdf).toContain('download="a&quot;&lt;b&gt;.bin.pdf"');
    expect(pdf).toContain('>Open</a>');
    expect(pdf).not.toMatch(/<script/);
    expect(String(filePage(code('image/png'))!.body)).toContain('<img class="media" src="/AbC1234/file" alt="a&quot;&lt;b&gt;.bin">');
    expect(String(filePage(code('audio/ogg'))!.body)).toContain('<audio class="media" controls preload="metadata" src="/AbC1234/file">');
    expect(String(filePage(code('video/mp4'))!.body)).toContain('<video class="media" controls playsinline preload="metadata" src="/AbC1234/file">');
    // An audio code holding an MP4 or WebM recording: the audio player, not a video frame.
    expect(String(filePage(code('video/mp4'), 'audio')!.body)).toContain('<audio class="media" controls preload="metadata" src="/AbC1234/file">');
    expect(String(filePage(code('video/webm'), 'audio')!.body)).not.toContain('<video');
  });

  it('allows the file from this host only', () => {
    const csp = filePage(code('video/webm'))!.headers['content-security-policy'];
    expect(csp).toMatch(/^default-src 'none'; /);
    expect(csp).toContain("media-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("object-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('script-src');
  });

  it('has no page for a target without its file', () => {
    expect(filePage({ id: 'qr_1', shortCode: 'AbC1234', target: { file_id: 'file_x', title: null, description: null } })).toBeNull();
  });

  it('writes sizes for people', () => {
    expect(humanSize(900)).toBe('900 bytes');
    expect(humanSize(2048)).toBe('2 KB');
    expect(humanSize(1536)).toBe('1.5 KB');
    expect(humanSize(25 * 1024 * 1024)).toBe('25 MB');
  });
});
