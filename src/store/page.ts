/** Where a page starts, decoded from an opaque cursor by the HTTP layer. */
export type PagePosition = { kind: 'first' } | { kind: 'after'; id: string } | { kind: 'before'; id: string } | { kind: 'last' };

export interface PageRequest {
  position: PagePosition;
  limit: number;
}

export interface Page<T> {
  items: T[];
  hasPrevious: boolean;
  hasNext: boolean;
  /** Counted for the first page only. */
  totalCount?: number;
}
