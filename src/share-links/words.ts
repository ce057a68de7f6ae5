// The words a shared page uses for scenario data, for readers who are not developers. Fields whose
// meaning the specification states are said in words (yes/no, money, hours, program names); the
// codes it leaves unexplained (adult_type, sex, caretaker, …) and the unlabelled flag yes_or_no are
// shown as the numbers stored, under a plain name. No imports.

/** Each program's name, as its agency or the tax code calls it. */
export const PROGRAM_NAMES: Record<string, string> = {
  actc: 'Additional Child Tax Credit',
  ctc: 'Child Tax Credit',
  eitc: 'Earned Income Tax Credit',
  state_tax: 'State income tax',
  state_eitc: 'State Earned Income Tax Credit',
  child_care: 'Child care assistance',
  tanf: 'Temporary Assistance for Needy Families (TANF)',
  ssi: 'Supplemental Security Income (SSI)',
  liheap: 'Low Income Home Energy Assistance Program (LIHEAP)',
  fica: 'Social Security and Medicare taxes (FICA)',
  snap: 'Supplemental Nutrition Assistance Program (SNAP, food stamps)',
  medic_aid: 'Medicaid',
  hix_ptc: 'Premium tax credit for marketplace health insurance',
  chip: "Children's Health Insurance Program (CHIP)",
  housing: 'Housing assistance',
  wic: 'Special Supplemental Nutrition Program for Women, Infants, and Children (WIC)',
  pandemic: 'Pandemic-era benefits',
  fed_tax: 'Federal income tax',
  nslp: 'National School Lunch Program',
};

/** How a field is shown: a yes/no flag, money a month, money an hour, hours a week, years, or a code (a number). */
export type Kind = 'flag' | 'monthly' | 'hourly' | 'hours' | 'years' | 'code';

export interface Field {
  key: string;
  label: string;
  kind: Kind;
}

export const ADULT_FIELDS: readonly Field[] = [
  { key: 'age', label: 'Age', kind: 'years' },
  { key: 'wage_rate', label: 'Hourly wage', kind: 'hourly' },
  { key: 'work_hours_per_week', label: 'Hours worked a week', kind: 'hours' },
  { key: 'training_hours_per_week', label: 'Hours of training a week', kind: 'hours' },
  { key: 'unemp_comp', label: 'Unemployment benefits', kind: 'monthly' },
  { key: 'monthly_ssi', label: 'Supplemental Security Income (SSI)', kind: 'monthly' },
  { key: 'monthly_disability', label: 'Disability benefits', kind: 'monthly' },
  { key: 'soc_sec_retirement', label: 'Social Security retirement', kind: 'monthly' },
  { key: 'child_support', label: 'Child support', kind: 'monthly' },
  { key: 'other_unearned', label: 'Other income not from work', kind: 'monthly' },
  { key: 'is_married', label: 'Married', kind: 'flag' },
  { key: 'is_spouse_in_household', label: 'Spouse lives in the household', kind: 'flag' },
  { key: 'is_pregnant', label: 'Pregnant', kind: 'flag' },
  { key: 'is_veteran', label: 'Veteran', kind: 'flag' },
  { key: 'same_snap_household', label: 'Buys and prepares food with the household (same SNAP household)', kind: 'flag' },
  { key: 'same_legal_hh_fed_state', label: 'Same legal household for federal and state purposes', kind: 'flag' },
  { key: 'adult_type', label: 'Adult type', kind: 'code' },
  { key: 'aged_or_disability_income', label: 'Aged or disability income', kind: 'code' },
  { key: 'yes_or_no', label: 'Yes-or-no field', kind: 'code' },
];

export const CHILD_FIELDS: readonly Field[] = [
  { key: 'age', label: 'Age', kind: 'years' },
  { key: 'in_school', label: 'In school', kind: 'code' },
  { key: 'is_disabled', label: 'Has a disability', kind: 'flag' },
  { key: 'ssi_income_amount', label: 'Supplemental Security Income (SSI)', kind: 'monthly' },
  { key: 'purchase_and_prepare_meals_together', label: 'Buys and prepares meals with the household', kind: 'flag' },
  { key: 'same_legal_hh_fed_state', label: 'Same legal household for federal and state purposes', kind: 'flag' },
  { key: 'sex', label: 'Sex', kind: 'code' },
  { key: 'caretaker', label: 'Caretaker', kind: 'code' },
  { key: 'relation_to_caretaker', label: 'Relation to caretaker', kind: 'code' },
  { key: 'child_care_setting', label: 'Child care setting', kind: 'code' },
  { key: 'cc_rate_category', label: 'Child care rate category', kind: 'code' },
  { key: 'yes_or_no', label: 'Yes-or-no field', kind: 'code' },
];

/** "$1,234.50" without Intl (the same in every runtime). */
export function money(value: unknown): string {
  const n = Number(value ?? 0);
  const safe = Number.isFinite(n) ? n : 0;
  const [whole = '0', cents = '00'] = safe.toFixed(2).split('.');
  return `$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

/** A field's value in words (or, for a code, the number stored). */
export function say(kind: Kind, value: unknown): string {
  switch (kind) {
    case 'flag':
      return value === 1 ? 'Yes' : 'No';
    case 'monthly':
      return `${money(value)} a month`;
    case 'hourly':
      return `${money(value)} an hour`;
    case 'hours':
      return `${Number(value ?? 0)} hours`;
    case 'years':
      return Number(value) === 1 ? '1 year' : `${Number(value)} years`;
    case 'code':
      return String(value);
  }
}
