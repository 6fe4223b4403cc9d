import { useEffect, useId, useState } from 'react';
import { api, call, raw, type Schemas } from '../../api/client';
import { asApiError } from '../../api/errors';

type UploadedFile = Schemas['FileDto'];

/** What a code type can serve (the API checks it again at creation: `target.file_id` names a file of the wrong kind → 400). */
const KINDS: Record<string, { accept: string; hint: string; fits: (contentType: string) => boolean }> = {
  file: { accept: 'application/pdf,image/png,image/jpeg,image/webp,image/gif,audio/*,video/mp4,video/webm', hint: 'PDF, image (PNG, JPEG, WebP, GIF), audio or video', fits: () => true },
  // An audio-only recording often comes in an MP4 or WebM container: the API accepts those for audio codes too.
  audio: { accept: 'audio/*,video/mp4,video/webm', hint: 'MP3, M4A/AAC, OGG or WAV (or the sound of an MP4/WebM)', fits: (t) => t.startsWith('audio/') || t.startsWith('video/') },
  video: { accept: 'video/mp4,video/webm', hint: 'MP4 or WebM', fits: (t) => t.startsWith('video/') },
};

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

const describeFile = (f: UploadedFile) => `${f.name} (${formatBytes(f.size)}, ${f.content_type})`;

/**
 * The file of a file/audio/video code: upload one (`POST /v1/files`, one multipart part named `file`) or choose one
 * of the workspace's uploaded files (`GET /v1/files`, newest first, one cursor page at a time: "Show more files" adds
 * the next). The chosen file's name, size and type are shown. An upload refusal (plan limit or quota 403, 413 too
 * large, a type the API does not accept) or the form's error for the field (`error`) is shown here, bound to both
 * controls.
 */
export function FilePicker({
  label,
  codeType,
  value,
  onChange,
  error,
  disabled,
}: {
  label: string;
  /** file, audio or video: which uploads and files fit. */
  codeType: string;
  /** The chosen file's id (`file_…`), or ''. */
  value: string;
  onChange: (fileId: string) => void;
  error?: string;
  disabled?: boolean;
}) {
  const id = useId();
  const kind = KINDS[codeType] ?? KINDS.file;
  const [files, setFiles] = useState<UploadedFile[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [listError, setListError] = useState<{ message: string; after?: string }>();
  const [uploadError, setUploadError] = useState<string>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const loadPage = async (after?: string) => {
    setListError(undefined);
    try {
      const page = await call(api.GET('/v1/files', { params: { query: { limit: 50, ...(after && { cursor: after }) } } }));
      setFiles((old) => (after ? [...old, ...page.data.filter((f) => !old.some((o) => o.id === f.id))] : page.data));
      setCursor(page.has_more && page.next_cursor ? page.next_cursor : null);
    } catch (err) {
      setListError({ message: `The uploaded files could not be listed: ${asApiError(err).message}`, after });
    }
  };
  // The first page once; later pages on request ("Show more files").
  useEffect(() => {
    void loadPage();
  }, []);

  // The chosen file when it is not on the pages loaded (an existing code's file, further down the list).
  const [chosen, setChosen] = useState<UploadedFile>();
  useEffect(() => {
    if (!value || files.some((f) => f.id === value) || chosen?.id === value) return;
    call(api.GET('/v1/files/{id}', { params: { path: { id: value } } })).then(setChosen, () => setChosen(undefined));
  }, [value, files, chosen]);
  const selected = files.find((f) => f.id === value) ?? (chosen?.id === value ? chosen : undefined);

  const upload = async (file: File) => {
    setBusy(true);
    setUploadError(undefined);
    setStatus(`Uploading ${file.name}…`);
    try {
      const form = new FormData();
      form.append('file', file);
      const res = await raw('/v1/files', { method: 'POST', body: form, headers: { accept: 'application/json' } });
      const uploaded = (await res.json()) as UploadedFile;
      setFiles((old) => [uploaded, ...old.filter((f) => f.id !== uploaded.id)]);
      onChange(uploaded.id);
      setStatus(`Uploaded ${uploaded.name}`);
    } catch (err) {
      setUploadError(uploadMessage(err));
      setStatus('');
    } finally {
      setBusy(false);
    }
  };

  const shownError = uploadError ?? error;
  const errorId = `${id}-error`;
  const described = (own: string) => [own, shownError ? errorId : ''].filter(Boolean).join(' ');
  const choices = files.filter((f) => kind.fits(f.content_type) || f.id === value);

  return (
    <fieldset className={`file-picker${shownError ? ' has-error' : ''}`} aria-describedby={shownError ? errorId : undefined}>
      <legend>{label}</legend>
      <p id={`${id}-selected`} className="file-picker-selected">
        {selected ? (
          <>
            Chosen file: <strong>{selected.name}</strong> · {formatBytes(selected.size)} · {selected.content_type}
          </>
        ) : value ? (
          <>Chosen file: {value}</>
        ) : (
          'No file chosen yet.'
        )}
      </p>
      {!disabled && (
        <div className="field">
          <label htmlFor={`${id}-upload`}>Upload a file</label>
          <input
            id={`${id}-upload`}
            type="file"
            accept={kind.accept}
            disabled={busy}
            aria-invalid={uploadError ? true : undefined}
            aria-describedby={described(`${id}-upload-hint`)}
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (file) void upload(file);
            }}
          />
          <p id={`${id}-upload-hint`} className="hint">
            {kind.hint}, up to 25 MB unless your server sets another limit.
          </p>
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-choose`}>{disabled ? 'File' : 'Or choose an uploaded file'}</label>
        <select
          id={`${id}-choose`}
          value={value}
          disabled={disabled || busy}
          aria-invalid={error && !uploadError ? true : undefined}
          aria-describedby={described(`${id}-selected`)}
          onChange={(e) => {
            setUploadError(undefined);
            onChange(e.target.value);
          }}
        >
          <option value="">{choices.length ? '— choose a file —' : 'No uploaded file yet'}</option>
          {choices.map((f) => (
            <option key={f.id} value={f.id}>
              {describeFile(f)}
            </option>
          ))}
        </select>
        {cursor && (
          <p>
            <button type="button" className="button secondary" onClick={() => void loadPage(cursor)}>
              Show more files
            </button>
          </p>
        )}
        {listError && (
          <p className="field-error">
            {listError.message}{' '}
            <button type="button" className="button secondary" onClick={() => void loadPage(listError.after)}>
              Retry
            </button>
          </p>
        )}
      </div>
      <p role="status" className="hint">
        {status}
      </p>
      {shownError && (
        <p id={errorId} className="field-error">
          {shownError}
        </p>
      )}
    </fieldset>
  );
}

/** An upload's refusal in plain words (the API's message, which names the limit, plus what to do). */
function uploadMessage(err: unknown): string {
  const e = asApiError(err);
  if (e.status === 413) return `${e.message} Choose a smaller file.`;
  if (e.code === 'plan_limit_reached') return `${e.message} Delete files no code uses, or upgrade the plan.`;
  if (e.status === 0) return `The upload did not complete (${e.message}). A file over the size limit can also end this way.`;
  return e.message;
}
