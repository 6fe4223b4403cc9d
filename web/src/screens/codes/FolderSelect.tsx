import { useEffect, useState } from 'react';
import { api, call } from '../../api/client';
import { SelectField } from '../../components/FormField';

/** A folder picker over the workspace's folders (first 100; `GET /v1/folders`). */
export function FolderSelect({
  value,
  onChange,
  error,
  label = 'Folder',
  noneLabel = 'No folder',
  disabled,
}: {
  value: string;
  onChange: (id: string) => void;
  error?: string;
  label?: string;
  noneLabel?: string;
  disabled?: boolean;
}) {
  const folders = useFolders();
  return (
    <SelectField
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      options={[{ value: '', label: noneLabel }, ...folders.map((f) => ({ value: f.id, label: f.name }))]}
      error={error}
      disabled={disabled}
    />
  );
}

export function useFolders(): Array<{ id: string; name: string }> {
  const [folders, setFolders] = useState<Array<{ id: string; name: string }>>([]);
  useEffect(() => {
    call(api.GET('/v1/folders', { params: { query: { limit: 100 } } })).then(
      (p) => setFolders(p.data.map((f) => ({ id: f.id, name: f.name }))),
      () => undefined,
    );
  }, []);
  return folders;
}
