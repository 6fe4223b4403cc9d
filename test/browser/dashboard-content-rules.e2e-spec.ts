import { http } from '../setup/app';
import { atBothWidths, expectNoSeriousA11yViolations, freshOwner, useDashboardStack, type Owner } from '../setup/browser';

jest.setTimeout(300_000);

/** The Content and Rules tabs of a code: saving through PUT /v1/qr-codes/{id}/content, errors at their field, the rule tester. */
describe('dashboard: hosted-page content and smart-URL rules', () => {
  const stack = useDashboardStack(25);
  let owner: Owner;

  beforeAll(async () => {
    owner = await freshOwner(stack);
  });

  const openTab = async (codeId: string, tab: string) => {
    const watched = await stack.signedIn(owner);
    await watched.page.goto(`${stack.appUrl}/codes/${codeId}`);
    await watched.page.getByRole('tab', { name: tab }).click();
    return watched.page;
  };

  it('edits a link page: an API error lands on the link it names, a fix is saved', async () => {
    const created = await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: owner.org.apiKey, body: { name: 'Links', target: { type: 'linkpage', title: 'Find us', links: [{ title: 'Shop', url: 'https://shop.example.com' }] } } });
    expect(created.status).toBe(201);
    const page = await openTab(created.body.id, 'Content');
    await page.getByRole('button', { name: 'Add link' }).click();
    await page.getByLabel('Link 2 title', { exact: true }).fill('Blog');
    await page.getByLabel('Link 2 URL', { exact: true }).fill('javascript:alert(1)');
    await page.getByRole('button', { name: 'Save content' }).click();
    const url2 = page.getByLabel('Link 2 URL', { exact: true });
    await page.locator('[aria-invalid="true"]').first().waitFor();
    expect(await url2.getAttribute('aria-invalid')).toBe('true');
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `content editor at ${w} px`));
    await page.getByLabel('Link 2 URL', { exact: true }).fill('https://blog.example.com');
    await page.getByRole('button', { name: 'Save content' }).click();
    await page.getByText('Content saved').waitFor();
    const stored = await http(stack.api.origin, 'GET', `/v1/qr-codes/${created.body.id}`, { key: owner.org.apiKey });
    expect(stored.body.target.links).toEqual([
      { title: 'Shop', url: 'https://shop.example.com' },
      { title: 'Blog', url: 'https://blog.example.com' },
    ]);
  });

  it('edits smart-URL rules (a bad time zone named at its field) and tests them', async () => {
    const created = await http(stack.api.origin, 'POST', '/v1/qr-codes', {
      key: owner.org.apiKey,
      body: { name: 'Smart', target: { type: 'smarturl', default_url: 'https://example.com/', rules: [{ name: 'France', if: { country: ['FR'] }, then: { destination: 'https://example.com/fr' } }] } },
    });
    expect(created.status).toBe(201);
    const page = await openTab(created.body.id, 'Rules');
    await page.getByRole('button', { name: 'Add a rule' }).click();
    await page.getByLabel('Rule 2 destination').fill('https://example.com/night');
    await page.getByLabel('Rule 2: only at certain times').check();
    await page.getByLabel('Rule 2 time zone').fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.locator('[aria-invalid="true"]').first().waitFor();
    expect(await page.getByLabel('Rule 2 time zone').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Rule 2 time zone').fill('Europe/Paris');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.getByText('Rules saved').waitFor();
    const stored = await http(stack.api.origin, 'GET', `/v1/qr-codes/${created.body.id}`, { key: owner.org.apiKey });
    expect(stored.body.target.rules).toHaveLength(2);
    expect(stored.body.target.rules[0].id).toBe(created.body.target.rules[0].id);

    await page.getByLabel('Country', { exact: true }).fill('FR');
    await page.getByRole('button', { name: 'Test the rules' }).click();
    await page.getByText(`Rule ${created.body.target.rules[0].id} matches: https://example.com/fr.`).waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `rules editor at ${w} px`));
  });

  it('keeps the focus on a moved rule, and keeps a menu price a number when the content is saved', async () => {
    const smart = await http(stack.api.origin, 'POST', '/v1/qr-codes', {
      key: owner.org.apiKey,
      body: { name: 'Two rules', target: { type: 'smarturl', default_url: 'https://example.com/', rules: [{ if: { device: ['mobile'] }, then: { destination: 'https://example.com/m' } }, { if: { os: ['ios'] }, then: { destination: 'https://example.com/i' } }] } },
    });
    const rules = await openTab(smart.body.id, 'Rules');
    await rules.getByRole('button', { name: 'Move rule 2 up' }).focus();
    await rules.keyboard.press('Enter');
    // The moved rule is rule 1 now: its "up" is disabled, so the focus is on its "down".
    await expect(rules.evaluate('document.activeElement && document.activeElement.textContent.trim()')).resolves.toBe('Move rule 1 down');
    await rules.keyboard.press('Enter');
    await expect(rules.evaluate('document.activeElement && document.activeElement.textContent.trim()')).resolves.toBe('Move rule 2 up');

    const menu = await http(stack.api.origin, 'POST', '/v1/qr-codes', {
      key: owner.org.apiKey,
      body: { name: 'Menu', target: { type: 'menupage', title: 'Lunch', sections: [{ name: 'Drinks', items: [{ name: 'Tea', price: 4.5 }, { name: 'Water', price: 'free' }] }] } },
    });
    const content = await openTab(menu.body.id, 'Content');
    await content.getByLabel('Title', { exact: true }).fill('Lunch menu');
    await content.getByRole('button', { name: 'Save content' }).click();
    await content.getByText('Content saved').waitFor();
    const stored = await http(stack.api.origin, 'GET', `/v1/qr-codes/${menu.body.id}`, { key: owner.org.apiKey });
    expect(stored.body.target.title).toBe('Lunch menu');
    expect(stored.body.target.sections[0].items.map((i: { price: unknown }) => i.price)).toEqual([4.5, 'free']);
  });
});
