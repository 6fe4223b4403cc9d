/** Summarizes a V8 .cpuprofile (node --cpu-prof) as text: the frames with the most self time, and the same grouped by
 * source file (node_modules package or src/ file), so a profile can be kept in the repository as a few lines. */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

/** `node_modules/<pkg>` or the path from `src/` or `node:…`, else the file name. */
function where(url: string): string {
  if (!url) return '(native / V8)';
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1];
  const src = /\/(src\/.*)$/.exec(url);
  if (src) return src[1].replace(/\.js$/, '.ts');
  return url.replace(/^file:\/\//, '').replace(/^node:/, 'node:');
}

export function summarizeCpuProfile(file: string, top = 30): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  // Self time per node: the time deltas of the samples that landed on it.
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i], (self.get(samples[i]) ?? 0) + (deltas[i] ?? 0));
  // Percentages of the busy time: the idle samples (waiting for the next request) are left out.
  const idle = new Set(profile.nodes.filter((x) => x.callFrame.functionName === '(idle)').map((x) => x.id));
  const all = [...self.values()].reduce((a, b) => a + b, 0);
  const total = [...self.entries()].reduce((a, [id, t]) => (idle.has(id) ? a : a + t), 0) || 1;
  const byFrame = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (t === 0 || idle.has(node.id)) continue;
    const f = node.callFrame;
    const frame = `${f.functionName || '(anonymous)'}  ${where(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + t);
    byFile.set(where(f.url), (byFile.get(where(f.url)) ?? 0) + t);
  }
  const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, t]) => `${pct(t)}  ${k}`)
      .join('\n');
  return (
    `CPU profile of the scan process: ${(all / 1e6).toFixed(1)} s sampled, ${(total / 1e6).toFixed(1)} s busy (percentages of the busy time;\n` +
    `start-up included, idle left out)\n\n` +
    `self time by file or package\n${list(byFile, 20)}\n\n` +
    `self time by function (top ${top})\n${list(byFrame, top)}\n`
  );
}

if (require.main === module) {
  process.stdout.write(summarizeCpuProfile(process.argv[2], Number(process.argv[3] ?? 30)));
}
