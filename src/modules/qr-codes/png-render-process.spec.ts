import sharp from 'sharp';
import { ApiException } from '../../common/errors/api.exception';
import { parseDesign } from '../rendering/design';
import { PngRenderProcess } from './png-render-process';

describe('PngRenderProcess', () => {
  const renderer = new PngRenderProcess(2);
  afterAll(() => renderer.stop());

  it('draws PNGs in a child process, across recycled children, and passes refusals back', async () => {
    const design = parseDesign({ shapes: { body: 'dots' } });
    // Five images with a new child every two: none is lost when a recycled child exits.
    const pngs = await Promise.all([0, 1, 2, 3, 4].map((i) => renderer.render(`https://scan.example/Ab${i}dE9x`, design, null, 1600)));
    for (const png of pngs) expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1600, height: 1600 });
    const refused = await renderer.render('x'.repeat(200), design, null, 100).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiException);
    expect((refused as ApiException).extras.field).toBe('size');
  }, 120_000);
});
