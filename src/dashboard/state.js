// What the dashboard's modules share: the terminals as last read, and the page's hooks.

export const $ = (sel) => document.querySelector(sel);

/** Every terminal's view (`GET /v1/terminals/{id}`), by id. */
export const views = new Map();

/** Set by app.js: redraw everything from `views`; follow the record stream afresh. */
export const hooks = { render: () => {}, restart: () => {} };

/** The terminal whose page is open, or null on the grid. */
export function openId() {
  const m = /^#\/t\/(.+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}
