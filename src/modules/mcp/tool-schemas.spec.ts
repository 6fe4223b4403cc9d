import { operationInput, toJsonSchema, type OpenApiDocument } from './tool-schemas';

const doc: OpenApiDocument = {
  info: { version: '2026-02-08' },
  paths: {
    '/v1/things/{id}': {
      patch: {
        operationId: 'Things_update',
        summary: 'Update a thing',
        description: 'Only the fields sent change.',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } },
          { name: 'dry_run', in: 'query', required: false, description: 'Check only', schema: { type: 'boolean' } },
        ],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/UpdateThingDto' } } } },
      },
    },
  },
  components: {
    schemas: {
      UpdateThingDto: {
        type: 'object',
        required: ['target'],
        properties: {
          name: { type: 'string', maxLength: 255, example: 'Spring' },
          folder_id: { type: 'string', nullable: true },
          design: { nullable: true, allOf: [{ $ref: '#/components/schemas/DesignDto' }] },
          target: { oneOf: [{ $ref: '#/components/schemas/UrlTarget' }], discriminator: { propertyName: 'type', mapping: { url: '#/components/schemas/UrlTarget' } } },
        },
      },
      DesignDto: { type: 'object', properties: { colors: { $ref: '#/components/schemas/ColorsDto' } } },
      ColorsDto: { type: 'object', properties: { foreground: { type: 'string' } } },
      UrlTarget: { type: 'object', properties: { type: { type: 'string', enum: ['url'] } } },
      Unused: { type: 'object' },
    },
  },
};

describe('tool input schemas from OpenAPI operations', () => {
  it('flattens path parameters, query parameters and body fields into one closed object', () => {
    const input = operationInput(doc, 'Things_update');
    expect(input.pathParams).toEqual(['id']);
    expect(input.queryParams).toEqual(['dry_run']);
    expect(input.bodyFields).toEqual(['name', 'folder_id', 'design', 'target']);
    expect(input.description).toBe('Update a thing. Only the fields sent change.');
    expect(input.inputSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['id', 'target'],
      properties: { id: { type: 'string' }, dry_run: { type: 'boolean', description: 'Check only' }, name: { type: 'string', maxLength: 255, examples: ['Spring'] } },
    });
    expect(input.inputSchema.properties).not.toHaveProperty('Idempotency-Key');
  });

  it('rewrites OpenAPI 3.0 keywords and carries every referenced component, and only those, under $defs', () => {
    const input = operationInput(doc, 'Things_update');
    const props = input.inputSchema.properties as Record<string, unknown>;
    expect(props.folder_id).toEqual({ type: ['string', 'null'] });
    expect(props.design).toEqual({ anyOf: [{ allOf: [{ $ref: '#/$defs/DesignDto' }] }, { type: 'null' }] });
    expect(props.target).toEqual({ oneOf: [{ $ref: '#/$defs/UrlTarget' }] });
    expect(Object.keys(input.inputSchema.$defs as object).sort()).toEqual(['ColorsDto', 'DesignDto', 'UrlTarget']);
    expect(JSON.stringify(input.inputSchema)).not.toContain('#/components/');
  });

  it('fails loudly on an unknown operation, a missing component or a body field named like a parameter', () => {
    expect(() => operationInput(doc, 'Nope_list')).toThrow(/no operation 'Nope_list'/);
    expect(() => toJsonSchema({ $ref: '#/components/schemas/X' }, new Set())).not.toThrow();
    const broken: OpenApiDocument = { ...doc, components: { schemas: { UpdateThingDto: { type: 'object', properties: { id: { type: 'string' } } } } } };
    expect(() => operationInput(broken, 'Things_update')).toThrow(/both named 'id'/);
    const dangling: OpenApiDocument = { ...doc, components: { schemas: { UpdateThingDto: { type: 'object', properties: { x: { $ref: '#/components/schemas/Gone' } } } } } };
    expect(() => operationInput(dangling, 'Things_update')).toThrow(/no component 'Gone'/);
  });
});
