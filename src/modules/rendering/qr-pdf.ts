import PDFDocument from 'pdfkit';
import type { Scene } from './qr-svg';

/** Printed width of the symbol with its quiet zone (mm): `print_mm` on downloads. A frame adds to it. */
export const PRINT_MM_MIN = 10;
export const PRINT_MM_MAX = 1000;
export const PRINT_MM_DEFAULT = 50;

const PT_PER_MM = 72 / 25.4;

/**
 * The scene as a one-page vector PDF (pdfkit): every module, eye and frame (its text included, as outlines) is a filled
 * path in one drawing, gradients are PDF shadings; only a logo, when the design has one, is a raster image. The page is
 * the image: `printMm` wide for the symbol with its quiet zone, plus the frame.
 */
export function sceneToPdf(scene: Scene, printMm: number): Promise<Buffer> {
  const k = (printMm * PT_PER_MM) / scene.total; // points per module
  const { canvas } = scene;
  const doc = new PDFDocument({
    size: [canvas.w * k, canvas.h * k],
    margin: 0,
    autoFirstPage: true,
    compress: true,
    // A fixed date: the same code and design give the same bytes.
    info: { Title: 'QR code', Creator: 'Scanlink', Producer: 'Scanlink', CreationDate: new Date(0) },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.save();
  doc.transform(k, 0, 0, k, -canvas.x * k, -canvas.y * k);
  if (scene.background) doc.rect(canvas.x, canvas.y, canvas.w, canvas.h).fill(scene.background);
  const g = scene.gradient;
  for (const layer of scene.layers) {
    if (!layer.d) continue;
    let paint: string | PDFKit.PDFGradient;
    if (layer.paint !== null || !g) paint = layer.paint ?? scene.design.colors.foreground;
    else {
      // pdfkit applies the transformation in force when the shading is used: these are module coordinates.
      const grad = g.type === 'radial' ? doc.radialGradient(g.x1, g.y1, 0, g.x1, g.y1, g.r) : doc.linearGradient(g.x1, g.y1, g.x2, g.y2);
      grad.stop(0, g.start).stop(1, g.end);
      paint = grad;
    }
    doc.path(layer.d).fill(paint, layer.evenOdd ? 'even-odd' : 'non-zero');
  }
  if (scene.logo) {
    const { box, image } = scene.logo;
    doc.image(image.dataUri, box.x0, box.y0, { width: box.x1 - box.x0, height: box.y1 - box.y0 });
  }
  doc.restore();
  doc.end();
  return done;
}
