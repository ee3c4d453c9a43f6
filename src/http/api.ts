/** The JSON API: every route of the HTTP interface that answers JSON (or text), registered on the shared router. */
import type { Router } from '../web/router.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerDescriptionRoutes } from './routes/descriptions.js';
import { registerDocumentRoutes } from './routes/documents.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerKeyRoutes } from './routes/keys.js';
import { registerWriteRoutes } from './routes/objects.js';
import { registerReadRoutes } from './routes/reads.js';
import { registerVoteRoutes } from './routes/votes.js';
import { registerSearchRoutes } from './routes/search.js';
import { registerServerRoutes } from './routes/servers.js';
import { registerSpaceRoutes } from './routes/spaces.js';
import { registerTopicRoutes } from './routes/topics.js';
import type { ApiDeps } from './settings.js';

export function registerApi(router: Router, s: ApiDeps): void {
  registerHealthRoutes(router, s);
  registerDocumentRoutes(router, s);
  registerWriteRoutes(router, s);
  registerReadRoutes(router, s);
  registerVoteRoutes(router, s);
  registerTopicRoutes(router, s);
  registerSearchRoutes(router, s);
  registerAdminRoutes(router, s);
  registerServerRoutes(router, s);
  registerKeyRoutes(router, s);
  registerSpaceRoutes(router, s);
  // Last: it describes every route registered before it.
  registerDescriptionRoutes(router, s);
}
