export { PACKAGE_ROOT as ROOT, BUNDLED_MODEL as POTION } from '../../src/paths.js';
