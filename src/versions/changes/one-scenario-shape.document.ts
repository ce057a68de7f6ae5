// Frozen: the OpenAPI document of the version before this change, where the change altered it
// (written once from that version's committed document; never regenerated).
// The 2026-11-21 document's replies that the change reshaped: the detail form (with the numeric
// scenario_data.token of that version), the revision and the delete replies.
import type { DocumentPart } from '../change.ts';

export const DOCUMENT: readonly DocumentPart[] = [
  {
    "pointer": "/paths/~1scenarios/post/responses/201/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario created",
            "scenario": {
              "token": "482913075561204",
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
              },
              "chart_img": "https://scenario-service.example.workers.dev/scenarios/482913075561204/chart.svg?exp=1795252443&sig=7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s",
              "created_at": "2026-11-21T08:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              }
            }
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDetailResponse"
        }
      }
    }
  },
  {
    "pointer": "/paths/~1scenarios~1{token}/get/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario found",
            "scenario": {
              "token": "482913075561204",
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
              },
              "chart_img": "https://scenario-service.example.workers.dev/scenarios/482913075561204/chart.svg?exp=1795252443&sig=7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s",
              "created_at": "2026-11-21T08:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              }
            }
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDetailResponse"
        }
      }
    }
  },
  {
    "pointer": "/paths/~1scenarios~1save/post/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario saved",
            "scenario": {
              "token": "482913075561204",
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
              },
              "chart_img": "https://scenario-service.example.workers.dev/scenarios/482913075561204/chart.svg?exp=1795252443&sig=7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s",
              "created_at": "2026-11-21T08:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              }
            }
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDetailResponse"
        }
      }
    }
  },
  {
    "pointer": "/paths/~1scenarios~1save/put/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario saved",
            "scenario": {
              "token": "482913075561204",
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
              },
              "chart_img": "https://scenario-service.example.workers.dev/scenarios/482913075561204/chart.svg?exp=1795252443&sig=7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s",
              "created_at": "2026-11-21T08:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              }
            }
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDetailResponse"
        }
      }
    }
  },
  {
    "pointer": "/paths/~1scenarios~1{token}~1revisions~1{version}~1restore/post/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario restored",
            "scenario": {
              "token": "482913075561204",
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
              },
              "chart_img": "https://scenario-service.example.workers.dev/scenarios/482913075561204/chart.svg?exp=1795252443&sig=7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s",
              "created_at": "2026-11-21T08:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              }
            }
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDetailResponse"
        }
      }
    }
  },
  {
    "pointer": "/paths/~1scenarios~1{token}~1revisions~1{version}/get/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Revision found",
            "revision": {
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
          }
        },
        "schema": {
          "$ref": "#/components/schemas/RevisionResponse"
        }
      }
    }
  },
  {
    "pointer": "/paths/~1scenarios~1{token}/delete/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario deleted"
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDeleted"
        }
      }
    }
  },
  {
    "pointer": "/paths/~1scenarios~1{token}~1delete/delete/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario deleted"
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDeleted"
        }
      }
    }
  },
  {
    "pointer": "/components/schemas/ScenarioDetailResponse",
    "value": {
      "type": "object",
      "properties": {
        "data": {
          "type": "object",
          "properties": {
            "status": {
              "type": "string",
              "enum": [
                "success"
              ]
            },
            "message": {
              "type": "string",
              "enum": [
                "Scenario found",
                "Scenario created",
                "Scenario saved",
                "Scenario restored"
              ]
            },
            "scenario": {
              "$ref": "#/components/schemas/ScenarioDetail"
            }
          },
          "required": [
            "status",
            "message",
            "scenario"
          ],
          "additionalProperties": false
        }
      },
      "required": [
        "data"
      ],
      "additionalProperties": false
    }
  },
  {
    "pointer": "/components/schemas/ScenarioDetail",
    "value": {
      "type": "object",
      "properties": {
        "token": {
          "type": "string",
          "minLength": 15,
          "maxLength": 15,
          "pattern": "^[1-9][0-9]{14}$",
          "example": "482913075561204"
        },
        "scenario_data": {
          "$ref": "#/components/schemas/ScenarioDataDetailForm"
        },
        "chart_img": {
          "type": "string",
          "maxLength": 2048,
          "format": "uri",
          "description": "Signed, expiring URL of an SVG chart of the scenario; needs no API key"
        },
        "created_at": {
          "type": "string",
          "minLength": 27,
          "maxLength": 27,
          "format": "date-time",
          "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$",
          "description": "ISO 8601, UTC, six fractional digits",
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
        }
      },
      "required": [
        "token",
        "scenario_data",
        "chart_img",
        "created_at",
        "state"
      ],
      "additionalProperties": false
    }
  },
  {
    "pointer": "/components/schemas/ScenarioDeleted",
    "value": {
      "type": "object",
      "properties": {
        "data": {
          "type": "object",
          "properties": {
            "status": {
              "type": "string",
              "enum": [
                "success"
              ]
            },
            "message": {
              "type": "string",
              "enum": [
                "Scenario deleted"
              ]
            }
          },
          "required": [
            "status",
            "message"
          ],
          "additionalProperties": false
        }
      },
      "required": [
        "data"
      ],
      "additionalProperties": false
    }
  },
  {
    "pointer": "/components/schemas/RevisionResponse",
    "value": {
      "type": "object",
      "properties": {
        "data": {
          "type": "object",
          "properties": {
            "status": {
              "type": "string",
              "enum": [
                "success"
              ]
            },
            "message": {
              "type": "string",
              "enum": [
                "Revision found"
              ]
            },
            "revision": {
              "$ref": "#/components/schemas/Revision"
            }
          },
          "required": [
            "status",
            "message",
            "revision"
          ],
          "additionalProperties": false
        }
      },
      "required": [
        "data"
      ],
      "additionalProperties": false
    }
  },
  {
    "pointer": "/components/schemas/ScenarioResponse"
  },
  {
    "pointer": "/components/schemas/Scenario"
  },
  {
    "pointer": "/components/schemas/ScenarioDeletion"
  },
  {
    "pointer": "/paths/~1scenarios~1{token}/patch/responses/200/content",
    "value": {
      "application/json": {
        "example": {
          "data": {
            "status": "success",
            "message": "Scenario saved",
            "scenario": {
              "token": "482913075561204",
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
              },
              "chart_img": "https://scenario-service.example.workers.dev/scenarios/482913075561204/chart.svg?exp=1795252443&sig=7.Yk3p0qF8m2c9RZJdV1wQe4sTtA6hLbN0uXyG5oKjP_s",
              "created_at": "2026-11-21T08:14:03.512000Z",
              "state": {
                "id": 36,
                "name": "New York"
              }
            }
          }
        },
        "schema": {
          "$ref": "#/components/schemas/ScenarioDetailResponse"
        }
      }
    }
  }
];
