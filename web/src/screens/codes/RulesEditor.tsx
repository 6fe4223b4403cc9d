/** Placeholder: a tab of the code detail screen (codes/CodeDetail.tsx renders it when the code's type has it). */
export default function RulesEditor({ codeId }: { codeId: string }) {
  return <p data-code-id={codeId}>Editing this code's smart-URL rules and testing them is coming soon.</p>;
}
