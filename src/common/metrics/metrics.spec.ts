import { countScanAnswer, metricsRegistry, observeRequest, queueJobsSource } from './metrics';

const value = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
  const metric = await metricsRegistry.getSingleMetric(name)!.get();
  return metric.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
};

describe('metrics', () => {
  it('labels request durations by route template and status class, never by raw path', async () => {
    observeRequest('GET', '/v1/qr-codes/:id', 200, 12);
    observeRequest('GET', undefined, 404, 1);
    observeRequest('BREW', '/v1/me', 503, 1);
    expect(await value('scanlink_http_request_duration_seconds', { route: '/v1/qr-codes/:id', status_class: '2xx' })).toBeGreaterThan(0);
    expect(await value('scanlink_http_request_duration_seconds', { route: 'unmatched', status_class: '4xx' })).toBeGreaterThan(0);
    expect(await value('scanlink_http_request_duration_seconds', { method: 'OTHER', status_class: '5xx' })).toBeGreaterThan(0);
  });

  it('maps scan answers to outcomes', async () => {
    for (const status of [302, 302, 200, 404, 410, 503, 500]) countScanAnswer(status);
    expect(await value('scanlink_scan_redirects_total', { outcome: 'redirect' })).toBe(2);
    for (const outcome of ['page', 'not_found', 'gone', 'unavailable', 'error']) expect(await value('scanlink_scan_redirects_total', { outcome })).toBe(1);
  });

  it('reads sourced gauges at scrape time, skips a failing source, and forgets removed ones', async () => {
    const off = queueJobsSource(() => [{ labels: { queue: 'batches', state: 'waiting' }, value: 3 }]);
    const offBroken = queueJobsSource(() => Promise.reject(new Error('redis down')));
    expect(await value('scanlink_queue_jobs', { queue: 'batches', state: 'waiting' })).toBe(3);
    off();
    offBroken();
    expect(await value('scanlink_queue_jobs')).toBe(0);
  });
});
