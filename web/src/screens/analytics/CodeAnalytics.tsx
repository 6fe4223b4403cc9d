/** Placeholder: a tab of the code detail screen (codes/CodeDetail.tsx renders it when the code's type has it). */
export default function CodeAnalytics({ codeId }: { codeId: string }) {
  return <p data-code-id={codeId}>Analytics of this code (coming soon).</p>;
}
