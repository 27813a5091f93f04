// The gateway's roles, highest first: each may do what the ones below it may (admin > marketer > member).
export const roles = ['admin', 'marketer', 'member'];

/** The roles a user of `role` may give what they create, such as a token: their own and every lesser one. */
export function rolesUpTo(role) {
  const index = roles.indexOf(role);
  return index < 0 ? [] : roles.slice(index);
}
