import { CONTENT_SPECS, paths, pick, toBody } from '../../web/src/screens/codes/content-spec';
import { emptyRule, fromDraft, ruleFieldNames, toDraft, type ApiRule } from '../../web/src/screens/codes/smart-rules-form';

describe('content editor forms', () => {
  it('keeps only the editable fields of a stored target and sends blanks as absent', () => {
    const stored = { type: 'linkpage', destination: 'https://s.example/x', editable: false, title: 'Find us', links: [{ title: 'Shop', url: 'https://shop.example.com' }] };
    const value = pick(CONTENT_SPECS.linkpage, stored);
    expect(value).toEqual({ title: 'Find us', description: '', links: [{ title: 'Shop', url: 'https://shop.example.com' }] });
    expect(toBody(CONTENT_SPECS.linkpage, value)).toEqual({ title: 'Find us', links: [{ title: 'Shop', url: 'https://shop.example.com' }] });
  });

  it('lists the paths the API names in its errors, nested lists included', () => {
    const value = pick(CONTENT_SPECS.menupage, { title: 'Menu', sections: [{ name: 'Starters', items: [{ name: 'Soup', price: '5' }] }] });
    expect(paths(CONTENT_SPECS.menupage, value)).toEqual(expect.arrayContaining(['title', 'sections.0.name', 'sections.0.items.0.price']));
    const review = pick(CONTENT_SPECS.review, { review_page: { title: 'Rate us', links: [{ platform: 'google', url: 'https://g.example' }] } });
    expect(paths(CONTENT_SPECS.review, review)).toContain('review_page.links.0.url');
  });
});

describe('smart-URL rules form', () => {
  it('round-trips a rule with every condition and a split', () => {
    const rule: ApiRule = {
      id: 'rul_1',
      name: 'A/B in France',
      if: { country: ['FR'], language: ['fr'], device: ['mobile'], time: { days: ['mon'], from: '09:00', to: '18:00', timezone: 'Europe/Paris' }, scans: { from: 1, to: 100 } },
      then: { split: [{ destination: 'https://a.example', weight: 30 }, { destination: 'https://b.example', weight: 70 }] },
    };
    expect(fromDraft(toDraft(rule))).toEqual(rule);
  });

  it('sends an empty rule as an always-matching one and names its fields for errors', () => {
    const d = { ...emptyRule(), destination: 'https://x.example', country: 'fr, BE' };
    expect(fromDraft(d)).toEqual({ if: { country: ['fr', 'BE'] }, then: { destination: 'https://x.example' } });
    expect(ruleFieldNames([d])).toEqual(expect.arrayContaining(['default_url', 'rules.0.if.time.timezone', 'rules.0.then.split.1.weight']));
  });
});
