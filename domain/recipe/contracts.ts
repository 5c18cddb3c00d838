import type { Contract, Recipe } from './types.js'

export type ContractChoice =
  | { readonly ok: true; readonly contract: Contract }
  | { readonly ok: false; readonly code: 'recipe_not_found' | 'recipe_contract_sunset'; readonly message: string }

/** The newest contract. */
export const newestContract = (recipe: Recipe): Contract => recipe.contracts.reduce((a, b) => (b.contract > a.contract ? b : a))

/**
 * The contract a run uses (SPEC 9): the pinned one, else the newest. A contract past its sunset instant answers
 * recipe_contract_sunset (410); an unknown contract number recipe_not_found (404).
 */
export const chooseContract = (recipe: Recipe, pinned: number | undefined, now: Date): ContractChoice => {
  const contract = pinned === undefined ? newestContract(recipe) : recipe.contracts.find((c) => c.contract === pinned)
  if (!contract) return { ok: false, code: 'recipe_not_found', message: `recipe ${recipe.slug} has no contract ${pinned}` }
  if (contract.sunset_at !== undefined && Date.parse(contract.sunset_at) <= now.getTime()) {
    return { ok: false, code: 'recipe_contract_sunset', message: `contract ${contract.contract} of recipe ${recipe.slug} was sunset at ${contract.sunset_at}` }
  }
  return { ok: true, contract }
}
