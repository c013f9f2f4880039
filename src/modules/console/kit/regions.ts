// A list's filters and pager are GET links and forms that htmx turns into a swap of one region of
// the page (kit/lists.tsx swapping). A request from htmx names the region it will replace
// (HX-Target): the route then answers with that region alone. A history restore (Back with htmx's
// cache off) and every request without htmx get the whole page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { render, type SafeHtml } from '../../../lib/html/jsx.ts';
import { sendHtml, type PageContext } from './http.ts';
import { page } from './layout.tsx';

/** Whether this request asks for the region `id` alone. */
export function wantsRegion(request: FastifyRequest, id: string): boolean {
  const headers = request.headers;
  return headers['hx-request'] === 'true' && headers['hx-history-restore-request'] !== 'true' && headers['hx-target'] === id;
}

/** The answer to a list's address varies with the htmx headers: caches must know. */
export function varyOnHtmx(reply: FastifyReply): FastifyReply {
  return reply.header('vary', 'HX-Request, HX-Target, HX-History-Restore-Request');
}

/** The region alone (an htmx swap). */
export function sendRegion(reply: FastifyReply, context: PageContext, region: SafeHtml): FastifyReply {
  return sendHtml(varyOnHtmx(reply), context, 200, render(region));
}

/** The whole page, from an address that also answers regions. */
export function sendListPage(reply: FastifyReply, context: PageContext, status: number, root: SafeHtml): FastifyReply {
  return sendHtml(varyOnHtmx(reply), context, status, page(root));
}
