import { useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { rawJson } from '../../api/client';
import { fieldErrors } from '../../api/errors';
import { CheckboxField, FormError, SelectField, TextField } from '../../components/FormField';
import { useSession } from '../../components/session-context';
import { PageHeader } from '../../components/States';
import { useToast } from '../../components/Toasts';
import { cleanDesign, DESIGN_FIELDS, DesignEditor, type Design } from './DesignEditor';
import { FolderSelect } from './FolderSelect';
import { LinkControlFields, LINK_CONTROL_FIELDS, linkControlBody, type LinkControls } from './LinkControls';
import { TargetFields } from './TargetFields';
import { buildTarget, fieldsFor, STATIC_CAPABLE, TARGET_TYPES, TYPE_LABELS, type Values } from './target-fields';

/** Creating a code of any target type, with its design (live preview), folder, tags and link controls. */
export default function CodeCreate() {
  const navigate = useNavigate();
  const toast = useToast();
  const { canEdit } = useSession();
  const [type, setType] = useState('url');
  const [kind, setKind] = useState<'dynamic' | 'static'>('dynamic');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Values>({});
  const [design, setDesign] = useState<Design>({});
  const [templateId, setTemplateId] = useState('');
  const [folderId, setFolderId] = useState('');
  const [tags, setTags] = useState('');
  const [controls, setControls] = useState<LinkControls>({});
  const [showDesign, setShowDesign] = useState(false);
  const [errors, setErrors] = useState<{ fields: Record<string, string>; general?: string }>({ fields: {} });
  const [busy, setBusy] = useState(false);
  const fields = useMemo(() => fieldsFor(type), [type]);
  const staticAllowed = STATIC_CAPABLE.includes(type);
  const effectiveKind = staticAllowed ? kind : 'dynamic';
  const target = useMemo(() => buildTarget(type, values), [type, values]);

  const known = ['name', 'type', 'target', 'target.type', 'folder_id', 'tags', ...fields.map((f) => f.name), ...DESIGN_FIELDS, ...LINK_CONTROL_FIELDS];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors({ fields: {} });
    try {
      const body = {
        target,
        type: effectiveKind,
        ...(name.trim() && { name: name.trim() }),
        ...(Object.keys(cleanDesign(design)).length > 0 && { design: cleanDesign(design) }),
        ...(templateId && { template_id: templateId }),
        ...(folderId && { folder_id: folderId }),
        ...(tags.trim() && { tags: tags.split(',').map((t) => t.trim()).filter(Boolean) }),
        ...(effectiveKind === 'dynamic' ? linkControlBody(controls, false) : {}),
      };
      const code = await rawJson<{ id: string; name: string }>('/v1/qr-codes', { method: 'POST', json: body });
      toast(`Created “${code.name}”`);
      void navigate(`/codes/${code.id}`);
    } catch (err) {
      const mapped = fieldErrors(err, known);
      setErrors(mapped);
      if (Object.keys(mapped.fields).some((f) => f.startsWith('design.') || f === 'template_id')) setShowDesign(true);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title="Create a QR code" actions={<Link to="/codes">Back to the codes</Link>} />
      {!canEdit && <p role="alert">Your role in this workspace can view codes but not create them.</p>}
      <form onSubmit={submit} noValidate>
        <FormError message={errors.general} />
        <SelectField
          label="Type"
          name="type"
          value={type}
          onChange={(e) => {
            setType(e.target.value);
            setValues({});
            setErrors({ fields: {} });
          }}
          options={TARGET_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
          error={errors.fields.type ?? errors.fields['target.type']}
        />
        <TextField label="Name" name="name" value={name} onChange={(e) => setName(e.target.value)} hint="Shown in the dashboard only; defaults to Campaign <short code> (dynamic) or Static <short code>" error={errors.fields.name} />
        {staticAllowed && (
          <CheckboxField
            label="Static code (the content is encoded in the image and can never be changed or counted)"
            checked={kind === 'static'}
            onChange={(e) => setKind(e.target.checked ? 'static' : 'dynamic')}
          />
        )}
        <fieldset>
          <legend>{TYPE_LABELS[type]}</legend>
          <TargetFields type={type} fields={fields} values={values} onChange={setValues} errors={errors.fields} />
          {errors.fields.target && <p className="field-error">{errors.fields.target}</p>}
        </fieldset>
        <fieldset>
          <legend>Organise</legend>
          <FolderSelect value={folderId} onChange={setFolderId} error={errors.fields.folder_id} />
          <TextField label="Tags" name="tags" value={tags} onChange={(e) => setTags(e.target.value)} hint="Comma-separated" error={errors.fields.tags} />
        </fieldset>
        {effectiveKind === 'dynamic' && <LinkControlFields value={controls} onChange={setControls} errors={errors.fields} />}
        <button type="button" className="button secondary" aria-expanded={showDesign} onClick={() => setShowDesign((s) => !s)}>
          {showDesign ? 'Hide the design' : 'Design…'}
        </button>
        {showDesign && (
          <section aria-label="Design">
            <DesignEditor design={design} onChange={setDesign} templateId={templateId} onTemplateChange={setTemplateId} previewBody={{ type: effectiveKind, target }} errors={errors.fields} />
          </section>
        )}
        <p>
          <button type="submit" className="button" disabled={busy || !canEdit}>
            Create the code
          </button>
        </p>
      </form>
    </>
  );
}

