// Frozen: the OpenAPI document of the version before this change, where the change altered it
// (written once from that version's committed document; never regenerated).
// The 2026-11-21 document's forms with a numeric scenario_data.token: the detail form's
// scenario_data and the revision (its list's example too).
import type { DocumentPart } from '../change.ts';

export const DOCUMENT: readonly DocumentPart[] = [
  {
    "pointer": "/components/schemas/ScenarioDataDetailForm",
    "value": {
      "type": "object",
      "properties": {
        "year": {
          "type": "integer",
          "minimum": 1990,
          "maximum": 2100,
          "format": "int32"
        },
        "adult": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/StoredAdult"
          },
          "minItems": 1,
          "maxItems": 20
        },
        "child": {
          "type": "array",
          "items": {
            "$ref": "#/components/schemas/StoredChild"
          },
          "maxItems": 20
        },
        "state": {
          "type": "integer",
          "minimum": 1,
          "maximum": 56,
          "format": "int32",
          "description": "FIPS code of the state",
          "example": 36
        },
        "token": {
          "type": "integer",
          "minimum": 100000000000000,
          "maximum": 999999999999999,
          "format": "int64",
          "description": "The token, as a number",
          "example": 482913075561204
        },
        "programs": {
          "type": "array",
          "items": {
            "type": "string",
            "enum": [
              "actc",
              "ctc",
              "eitc",
              "state_tax",
              "state_eitc",
              "child_care",
              "tanf",
              "ssi",
              "liheap",
              "fica",
              "snap",
              "medic_aid",
              "hix_ptc",
              "chip",
              "housing",
              "wic",
              "pandemic",
              "fed_tax",
              "nslp"
            ]
          },
          "minItems": 1,
          "maxItems": 19
        },
        "sub_division": {
          "type": "integer",
          "minimum": 1,
          "maximum": 2147483647,
          "format": "int32"
        }
      },
      "required": [
        "year",
        "adult",
        "child",
        "state",
        "token",
        "programs"
      ],
      "additionalProperties": false
    }
  },
  {
    "pointer": "/components/schemas/Revision",
    "value": {
      "type": "object",
      "properties": {
        "version": {
          "type": "integer",
          "minimum": 1,
          "maximum": 9007199254740991,
          "format": "int64",
          "description": "The version this revision is; its ETag is \"v<version>\"",
          "example": 2
        },
        "created_at": {
          "type": "string",
          "minLength": 27,
          "maxLength": 27,
          "format": "date-time",
          "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$",
          "description": "When the change that made this version happened",
          "example": "2026-11-21T08:14:03.512000Z"
        },
        "state": {
          "type": "object",
          "properties": {
            "id": {
              "type": "integer",
              "minimum": 1,
              "maximum": 56,
              "format": "int32",
              "description": "FIPS code of the state",
              "example": 36
            },
            "name": {
              "type": "string",
              "enum": [
                "Alabama",
                "Alaska",
                "Arizona",
                "Arkansas",
                "California",
                "Colorado",
                "Connecticut",
                "Delaware",
                "District of Columbia",
                "Florida",
                "Georgia",
                "Hawaii",
                "Idaho",
                "Illinois",
                "Indiana",
                "Iowa",
                "Kansas",
                "Kentucky",
                "Louisiana",
                "Maine",
                "Maryland",
                "Massachusetts",
                "Michigan",
                "Minnesota",
                "Mississippi",
                "Missouri",
                "Montana",
                "Nebraska",
                "Nevada",
                "New Hampshire",
                "New Jersey",
                "New Mexico",
                "New York",
                "North Carolina",
                "North Dakota",
                "Ohio",
                "Oklahoma",
                "Oregon",
                "Pennsylvania",
                "Rhode Island",
                "South Carolina",
                "South Dakota",
                "Tennessee",
                "Texas",
                "Utah",
                "Vermont",
                "Virginia",
                "Washington",
                "West Virginia",
                "Wisconsin",
                "Wyoming"
              ],
              "example": "New York"
            }
          },
          "required": [
            "id",
            "name"
          ],
          "additionalProperties": false
        },
        "scenario_data": {
          "$ref": "#/components/schemas/ScenarioDataDetailForm"
        }
      },
      "required": [
        "version",
        "created_at",
        "state",
        "scenario_data"
      ],
      "additionalProperties": false
    }
  },
  {
    "pointer": "/paths/~1scenarios~1{token}~1revisions/get/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": [
            {
              "version": 2,
              "created_at": "2026-11-21T09:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              },
              "scenario_data": {
                "year": 2027,
                "adult": [
                  {
                    "id": 1,
                    "age": 36,
                    "nickname": "Parent A",
                    "wage_rate": "22.50",
                    "yes_or_no": 1,
                    "adult_type": 1,
                    "is_married": 1,
                    "is_veteran": 0,
                    "unemp_comp": "0",
                    "is_pregnant": 0,
                    "monthly_ssi": "0",
                    "child_support": "0",
                    "other_unearned": "0",
                    "monthly_disability": "0",
                    "soc_sec_retirement": "0",
                    "same_snap_household": 1,
                    "work_hours_per_week": "40",
                    "is_spouse_in_household": 1,
                    "same_legal_hh_fed_state": 1,
                    "training_hours_per_week": "0",
                    "aged_or_disability_income": 0
                  },
                  {
                    "id": 2,
                    "age": 34,
                    "nickname": "Parent B",
                    "wage_rate": "16.00",
                    "yes_or_no": 1,
                    "adult_type": 1,
                    "is_married": 1,
                    "is_veteran": 0,
                    "unemp_comp": "0",
                    "is_pregnant": 0,
                    "monthly_ssi": "0",
                    "child_support": "0",
                    "other_unearned": "0",
                    "monthly_disability": "0",
                    "soc_sec_retirement": "0",
                    "same_snap_household": 1,
                    "work_hours_per_week": "20",
                    "is_spouse_in_household": 1,
                    "same_legal_hh_fed_state": 1,
                    "training_hours_per_week": "6",
                    "aged_or_disability_income": 0
                  }
                ],
                "child": [
                  {
                    "id": 1,
                    "age": 7,
                    "sex": 1,
                    "caretaker": 1,
                    "in_school": 1,
                    "yes_or_no": 1,
                    "is_disabled": 0,
                    "cc_rate_category": 2,
                    "ssi_income_amount": "0",
                    "child_care_setting": 1,
                    "relation_to_caretaker": 1,
                    "same_legal_hh_fed_state": 1,
                    "purchase_and_prepare_meals_together": 1
                  },
                  {
                    "id": 2,
                    "age": 3,
                    "sex": 2,
                    "caretaker": 1,
                    "in_school": 0,
                    "yes_or_no": 1,
                    "is_disabled": 0,
                    "cc_rate_category": 1,
                    "ssi_income_amount": "0",
                    "child_care_setting": 2,
                    "relation_to_caretaker": 1,
                    "same_legal_hh_fed_state": 1,
                    "purchase_and_prepare_meals_together": 1
                  }
                ],
                "state": 36,
                "token": 482913075561204,
                "programs": [
                  "snap",
                  "eitc",
                  "ctc",
                  "child_care",
                  "medic_aid"
                ],
                "sub_division": 5
              }
            },
            {
              "version": 1,
              "created_at": "2026-11-21T08:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              },
              "scenario_data": {
                "year": 2026,
                "adult": [
                  {
                    "id": 1,
                    "age": 36,
                    "nickname": "Parent A",
                    "wage_rate": "22.50",
                    "yes_or_no": 1,
                    "adult_type": 1,
                    "is_married": 1,
                    "is_veteran": 0,
                    "unemp_comp": "0",
                    "is_pregnant": 0,
                    "monthly_ssi": "0",
                    "child_support": "0",
                    "other_unearned": "0",
                    "monthly_disability": "0",
                    "soc_sec_retirement": "0",
                    "same_snap_household": 1,
                    "work_hours_per_week": "40",
                    "is_spouse_in_household": 1,
                    "same_legal_hh_fed_state": 1,
                    "training_hours_per_week": "0",
                    "aged_or_disability_income": 0
                  },
                  {
                    "id": 2,
                    "age": 34,
                    "nickname": "Parent B",
                    "wage_rate": "16.00",
                    "yes_or_no": 1,
                    "adult_type": 1,
                    "is_married": 1,
                    "is_veteran": 0,
                    "unemp_comp": "0",
                    "is_pregnant": 0,
                    "monthly_ssi": "0",
                    "child_support": "0",
                    "other_unearned": "0",
                    "monthly_disability": "0",
                    "soc_sec_retirement": "0",
                    "same_snap_household": 1,
                    "work_hours_per_week": "20",
                    "is_spouse_in_household": 1,
                    "same_legal_hh_fed_state": 1,
                    "training_hours_per_week": "6",
                    "aged_or_disability_income": 0
                  }
                ],
                "child": [
                  {
                    "id": 1,
                    "age": 7,
                    "sex": 1,
                    "caretaker": 1,
                    "in_school": 1,
                    "yes_or_no": 1,
                    "is_disabled": 0,
                    "cc_rate_category": 2,
                    "ssi_income_amount": "0",
                    "child_care_setting": 1,
                    "relation_to_caretaker": 1,
                    "same_legal_hh_fed_state": 1,
                    "purchase_and_prepare_meals_together": 1
                  },
                  {
                    "id": 2,
                    "age": 3,
                    "sex": 2,
                    "caretaker": 1,
                    "in_school": 0,
                    "yes_or_no": 1,
                    "is_disabled": 0,
                    "cc_rate_category": 1,
                    "ssi_income_amount": "0",
                    "child_care_setting": 2,
                    "relation_to_caretaker": 1,
                    "same_legal_hh_fed_state": 1,
                    "purchase_and_prepare_meals_together": 1
                  }
                ],
                "state": 36,
                "token": 482913075561204,
                "programs": [
                  "snap",
                  "eitc",
                  "ctc",
                  "child_care",
                  "medic_aid"
                ],
                "sub_division": 5
              }
            }
          ],
          "has_more": false
        },
        "schema": {
          "$ref": "#/components/schemas/RevisionList"
        }
      }
    }
  }
];
