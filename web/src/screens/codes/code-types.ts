/** What the code detail screen offers per target type (the API's `type` of a code). */
export const PAGE_CONTENT_TYPES: readonly string[] = ['review', 'linkpage', 'form', 'menupage', 'appstores', 'file', 'audio', 'video'];
export const RULE_TYPES: readonly string[] = ['smarturl'];
export const hasContentTab = (type: string) => PAGE_CONTENT_TYPES.includes(type);
export const hasRulesTab = (type: string) => RULE_TYPES.includes(type);
