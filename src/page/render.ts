/**
 * HTML through Eta, whose `<%= %>` escapes &, <, >, " and ' in every value (autoEscape, on by
 * default and pinned here): no registry text reaches the page as markup. Templates and the page's
 * own style sheet and icon live in views/ at the project root, shipped with the package.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import { projectRoot } from '../project.js';
import type { CategoryPageView, HomeView, NotFoundView } from './view.js';

export const VIEWS_DIR = join(projectRoot(), 'views');

// Templates are compiled once, on first use, and kept (cache); no template is ever built from input.
const eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, useWith: false, varName: 'it' });

export function renderHome (view: HomeView): string {
  return eta.render('home', view);
}

export function renderCategory (view: CategoryPageView): string {
  return eta.render('category', view);
}

export function renderNotFound (view: NotFoundView): string {
  return eta.render('not-found', view);
}

/** The files the page links to, read once: they are the same for every request. */
export interface PageAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

export const PAGE_ASSETS: ReadonlyMap<string, PageAsset> = new Map([
  ['/assets/page.css', { body: readFileSync(join(VIEWS_DIR, 'page.css')), contentType: 'text/css; charset=utf-8' }],
  ['/favicon.svg', { body: readFileSync(join(VIEWS_DIR, 'favicon.svg')), contentType: 'image/svg+xml' }],
]);
