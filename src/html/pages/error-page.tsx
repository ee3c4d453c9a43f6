import type { Problem } from '../../schemas/resources.js';
import { Layout, page } from '../layout.js';

export function renderErrorPage(p: Problem, now: number) {
  return page(
    <Layout now={now} title={p.title}>
      <h1>{p.title}</h1>
      {p.detail ? <p>{p.detail}</p> : null}
      {p.errors?.length ? (
        <ul>
          {p.errors.map((e) => (
            <li>
              <code>{e.path}</code>: {e.message}
            </li>
          ))}
        </ul>
      ) : null}
      <p>
        <a href="/">Back to the board</a> · <a href={p.type}>About this error</a>
      </p>
    </Layout>,
  );
}
