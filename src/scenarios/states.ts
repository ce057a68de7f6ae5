// The 50 states and DC by FIPS code. Validation and responses read this list (no query needed);
// the `states` table holds the same rows (drizzle/0001_seed_states.sql) for referential integrity,
// and a test checks that the two agree.
export interface UsState {
  id: number;
  name: string;
  slug: string;
}

const NAMES: ReadonlyArray<readonly [number, string]> = [
  [1, 'Alabama'], [2, 'Alaska'], [4, 'Arizona'], [5, 'Arkansas'], [6, 'California'],
  [8, 'Colorado'], [9, 'Connecticut'], [10, 'Delaware'], [11, 'District of Columbia'],
  [12, 'Florida'], [13, 'Georgia'], [15, 'Hawaii'], [16, 'Idaho'], [17, 'Illinois'],
  [18, 'Indiana'], [19, 'Iowa'], [20, 'Kansas'], [21, 'Kentucky'], [22, 'Louisiana'],
  [23, 'Maine'], [24, 'Maryland'], [25, 'Massachusetts'], [26, 'Michigan'], [27, 'Minnesota'],
  [28, 'Mississippi'], [29, 'Missouri'], [30, 'Montana'], [31, 'Nebraska'], [32, 'Nevada'],
  [33, 'New Hampshire'], [34, 'New Jersey'], [35, 'New Mexico'], [36, 'New York'],
  [37, 'North Carolina'], [38, 'North Dakota'], [39, 'Ohio'], [40, 'Oklahoma'], [41, 'Oregon'],
  [42, 'Pennsylvania'], [44, 'Rhode Island'], [45, 'South Carolina'], [46, 'South Dakota'],
  [47, 'Tennessee'], [48, 'Texas'], [49, 'Utah'], [50, 'Vermont'], [51, 'Virginia'],
  [53, 'Washington'], [54, 'West Virginia'], [55, 'Wisconsin'], [56, 'Wyoming'],
];

export const US_STATES: readonly UsState[] = NAMES.map(([id, name]) => ({
  id,
  name,
  slug: name.toLowerCase().replaceAll(' ', '-'),
}));

const BY_ID = new Map(US_STATES.map((s) => [s.id, s]));

export function findState(id: number): UsState | undefined {
  return BY_ID.get(id);
}
