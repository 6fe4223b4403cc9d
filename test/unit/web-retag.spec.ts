import { retag } from '../../web/src/screens/tags/retag';

describe('dashboard Tags screen: retag', () => {
  it('renames a tag in place, keeping the others and their order', () => {
    expect(retag(['summer', 'print', 'menu'], 'print', 'flyer')).toEqual(['summer', 'flyer', 'menu']);
  });
  it('removes a tag when the new name is null', () => {
    expect(retag(['summer', 'print'], 'summer', null)).toEqual(['print']);
  });
  it('merges into an existing tag without a duplicate, and trims', () => {
    expect(retag(['summer', 'Summer'], 'summer', ' Summer ')).toEqual(['Summer']);
  });
  it('adds a tag once (from = to = the tag appended)', () => {
    expect(retag(['a', 'b', 'c'], 'c', 'c')).toEqual(['a', 'b', 'c']);
    expect(retag(['a', 'b', 'b'], 'b', 'b')).toEqual(['a', 'b']);
    expect(retag(['a', 'c'], 'c', 'c')).toEqual(['a', 'c']);
  });
  it('is case-sensitive, as tags are', () => {
    expect(retag(['Summer'], 'summer', 'winter')).toEqual(['Summer']);
  });
});
