import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_REGISTRY } from '../../src/platform/errors/error-registry.js';
import { compareErrorDocs, documentedCodes, ERROR_DOCS_PATH, renderErrorDocs } from '../../scripts/error-docs.js';

// docs/errors.md is generated from the error registry (npm run docs:errors); these checks keep
// them equal both ways, so a new, renamed or removed code fails here until the page is regenerated.

const page = readFileSync(ERROR_DOCS_PATH, 'utf8');

describe('docs/errors.md and the error registry', () => {
  it('documents every registry code', () => {
    expect(compareErrorDocs(page).undocumented).toEqual([]);
  });

  it('documents no code the registry lacks', () => {
    expect(compareErrorDocs(page).unknown).toEqual([]);
  });

  it('is exactly what npm run docs:errors writes (statuses, types, messages, close codes)', () => {
    expect(page).toBe(renderErrorDocs());
  });

  it('notices a code added to, or removed from, the registry', () => {
    const { internal_error, ...withoutOne } = ERROR_REGISTRY;
    expect(compareErrorDocs(page, withoutOne)).toEqual({ undocumented: [], unknown: ['internal_error'] });
    const withExtra = { ...ERROR_REGISTRY, brand_new_code: { ...internal_error, message: 'New.' } };
    expect(compareErrorDocs(page, withExtra)).toEqual({ undocumented: ['brand_new_code'], unknown: [] });
    expect(documentedCodes(renderErrorDocs(withExtra))).toContain('brand_new_code');
    expect(documentedCodes(page)).toHaveLength(Object.keys(ERROR_REGISTRY).length);
  });
});
