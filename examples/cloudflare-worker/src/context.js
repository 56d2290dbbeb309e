// The context pipeline routes (prepare, finish, blob): filled in once the package has them.
export const contextRoutes = {};
